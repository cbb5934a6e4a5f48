-- Load on several nodes from one wrk: thread i connects to node ((i - 1) mod N) + 1 of
-- $VEIL_NODES ("host:port,host:port,..."), whatever URL is on wrk's command line. Use a thread
-- count that is a multiple of the node count so every node gets the same number of connections.
--
-- Requests: with $VEIL_BODY_FILE, POST $VEIL_PATH with that JSON body; otherwise
-- GET $VEIL_PATH_PREFIX<email>, a new email on every request. Authorization: Bearer $VEIL_KEY when set.
-- At the end prints one line per node: "node <i> <host:port> requests <n>" (requests sent).

local nodes = {}
local names = {}
local threads = {}

function setup(thread)
  if #nodes == 0 then
    for hostport in string.gmatch(os.getenv("VEIL_NODES") or "", "[^,]+") do
      local host, port = string.match(hostport, "^(.+):(%d+)$")
      assert(host, "VEIL_NODES entries must be host:port, got " .. hostport)
      local addrs = wrk.lookup(host, port)
      assert(addrs and #addrs > 0, "cannot resolve " .. hostport)
      table.insert(nodes, addrs[1])
      table.insert(names, hostport)
    end
    assert(#nodes > 0, "set VEIL_NODES")
  end
  table.insert(threads, thread)
  local index = #threads
  local node = ((index - 1) % #nodes) + 1
  thread.addr = nodes[node]
  thread:set("thread_id", index)
  thread:set("node_index", node)
end

-- Per thread (each wrk thread runs its own copy of this script).
sent = 0 -- global: done() reads it with thread:get
local key = os.getenv("VEIL_KEY")
local body_file = os.getenv("VEIL_BODY_FILE")
local prefix = os.getenv("VEIL_PATH_PREFIX")
local path = os.getenv("VEIL_PATH")
local headers = {}
local body = nil

function init(args)
  if key and key ~= "" then
    headers["Authorization"] = "Bearer " .. key
  end
  if body_file and body_file ~= "" then
    local file = assert(io.open(body_file, "rb"))
    body = file:read("*a")
    file:close()
    headers["Content-Type"] = "application/json"
  end
end

function request()
  sent = sent + 1
  if body then
    return wrk.format("POST", path, headers, body)
  end
  return wrk.format("GET", prefix .. "t" .. thread_id .. "u" .. sent .. "%40example.com", headers)
end

function done(summary, latency, requests)
  local per_node = {}
  for _, t in ipairs(threads) do
    local node = t:get("node_index")
    per_node[node] = (per_node[node] or 0) + (t:get("sent") or 0)
  end
  for i, name in ipairs(names) do
    io.write(string.format("node %d %s requests %d\n", i, name, per_node[i] or 0))
  end
end

-- POST $VEIL_PATH with several bodies, in turn; each connection starts at a different body. The
-- bodies are the lines of the file $VEIL_BODIES_FILE (JSON, one per line), or, when
-- $VEIL_BODY_PREFIX is set, the whole files $VEIL_BODY_PREFIX1 … $VEIL_BODY_PREFIX<N> (N =
-- $VEIL_BODY_COUNT), read as bytes so that a body may be anything, raw v2 envelopes included.
-- Authorization: Bearer $VEIL_KEY when set; Content-Type $VEIL_CONTENT_TYPE when set, else JSON.
local key = os.getenv("VEIL_KEY")
if key and key ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. key
end
wrk.method = "POST"
wrk.path = os.getenv("VEIL_PATH")
wrk.headers["Content-Type"] = os.getenv("VEIL_CONTENT_TYPE") or "application/json"

local requests = {}

-- The requests are formatted in init, once wrk has set the Host header (HTTP/1.1 requires one,
-- and Veil refuses a request without it); formatted at load time they would go without.
function init(args)
  local prefix = os.getenv("VEIL_BODY_PREFIX")
  if prefix and prefix ~= "" then
    for i = 1, tonumber(os.getenv("VEIL_BODY_COUNT")) do
      local file = assert(io.open(prefix .. i, "rb"))
      requests[#requests + 1] = wrk.format(nil, nil, nil, file:read("*a"))
      file:close()
    end
    return
  end
  local file = assert(io.open(os.getenv("VEIL_BODIES_FILE"), "rb"))
  for body in file:lines() do
    requests[#requests + 1] = wrk.format(nil, nil, nil, body)
  end
  file:close()
end

local next_request = 0
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("next_request", counter * 7919)
end

function request()
  next_request = next_request + 1
  return requests[next_request % #requests + 1]
end

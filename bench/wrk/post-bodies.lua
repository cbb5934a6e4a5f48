-- POST $VEIL_PATH with the JSON bodies of the file $VEIL_BODIES_FILE (one per line), in turn:
-- each connection starts at a different body. Authorization: Bearer $VEIL_KEY when set.
local key = os.getenv("VEIL_KEY")
if key and key ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. key
end
wrk.method = "POST"
wrk.path = os.getenv("VEIL_PATH")
wrk.headers["Content-Type"] = "application/json"

local requests = {}

-- The requests are formatted in init, once wrk has set the Host header (HTTP/1.1 requires one,
-- and Veil refuses a request without it); formatted at load time they would go without.
function init(args)
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

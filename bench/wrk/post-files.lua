-- POST $VEIL_PATH with the bodies of the files $VEIL_BODY_PREFIX1 … $VEIL_BODY_PREFIX<N> (N =
-- $VEIL_BODY_COUNT), in turn; each connection starts at a different body. The files are read as
-- bytes, so a body may be anything (raw v2 envelopes included). Authorization: Bearer $VEIL_KEY
-- when set; Content-Type $VEIL_CONTENT_TYPE when set, else JSON.
local key = os.getenv("VEIL_KEY")
if key and key ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. key
end
wrk.method = "POST"
wrk.path = os.getenv("VEIL_PATH")
wrk.headers["Content-Type"] = os.getenv("VEIL_CONTENT_TYPE") or "application/json"

local requests = {}

-- Formatted in init, once wrk has set the Host header (see post-bodies.lua).
function init(args)
  local prefix = os.getenv("VEIL_BODY_PREFIX")
  for i = 1, tonumber(os.getenv("VEIL_BODY_COUNT")) do
    local file = assert(io.open(prefix .. i, "rb"))
    requests[#requests + 1] = wrk.format(nil, nil, nil, file:read("*a"))
    file:close()
  end
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

-- GET $VEIL_PATH_PREFIX<n>%40example.com: a different email on every request.
-- Authorization: Bearer $VEIL_KEY when set.
local prefix = os.getenv("VEIL_PATH_PREFIX")
local key = os.getenv("VEIL_KEY")
if key and key ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. key
end
local n = 0

request = function()
  n = n + 1
  return wrk.format("GET", prefix .. "user" .. n .. "%40example.com")
end

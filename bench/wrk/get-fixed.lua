-- GET $VEIL_PATH on every request. Authorization: Bearer $VEIL_KEY when set.
local key = os.getenv("VEIL_KEY")
if key and key ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. key
end
wrk.method = "GET"
wrk.path = os.getenv("VEIL_PATH")

-- POST $VEIL_PATH with the JSON body in the file $VEIL_BODY_FILE on every request.
-- Authorization: Bearer $VEIL_KEY when set; Content-Type $VEIL_CONTENT_TYPE when set, else JSON.
local key = os.getenv("VEIL_KEY")
if key and key ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. key
end
local file = assert(io.open(os.getenv("VEIL_BODY_FILE"), "rb"))
wrk.body = file:read("*a")
file:close()
wrk.method = "POST"
wrk.path = os.getenv("VEIL_PATH")
wrk.headers["Content-Type"] = os.getenv("VEIL_CONTENT_TYPE") or "application/json"

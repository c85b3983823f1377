-- POST a check-in to the key results listed in the file named by KRS, in turn.
local ids = {}
for line in io.lines(os.getenv("KRS")) do ids[#ids + 1] = line end
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("TOKEN")
wrk.headers["service-accountId"] = os.getenv("ACCOUNT")
request = function()
  n = n + 1
  return wrk.format(nil, "/api/v1/metrics/" .. ids[(n % #ids) + 1] .. "/checkin", nil, '{"actual": ' .. (n % 100) .. '}')
end

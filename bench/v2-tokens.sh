#!/usr/bin/env bash
# Server CPU per request of the v2 token endpoints against their v1 twins, measured in the same
# run on the same node: POST /v1/token/generate against POST /v2/token/generate (the same email,
# the v2 body sealed once per round with the client's secret), and POST /v1/token/refresh against
# POST /v2/token/refresh (one pre-generated refresh token, as the v1 refresh figure of the main run
# uses). The node runs pinned to CPU 0 and wrk to CPU 1 (1 thread, 32 connections); each round is
# ROUND seconds (10) per endpoint, v1 and v2 alternating, ROUNDS rounds (3). Reports requests/s
# and server CPU microseconds per request for each, and v2/v1 per round. Loopback only. Results
# and the machine: docs/benchmarks.md ("The v2 API against v1").
set -euo pipefail
cd "$(dirname "$0")/.."
log_tag=v2-tokens
results=/dev/null
. bench/lib.sh
jar="${JAR:-veil-server/target/veil.jar}"
[ -f "$jar" ] || die "no $jar: ./mvnw -pl veil-server -am package -DskipTests"
command -v wrk >/dev/null || die "no wrk: apt-get install -y wrk"
core="$(ls veil-server/target/lib/veil-core-*.jar | head -1)"
round="${ROUND:-10}"
rounds="${ROUNDS:-3}"
dir="$(mktemp -d)"
cleanup() {
  [ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

start_serve "$jar" "$dir" 0
admin_key="$(cat "$dir/data/admin.key")"
created="$(java -jar "$jar" admin --port "$grpc_port" --key "$admin_key" client create \
  --name bench --roles GENERATOR --json 2>/dev/null)"
key="$(printf '%s' "$created" | sed -n 's/.*"api_key" *: *"\([^"]*\)".*/\1/p')"
secret="$(printf '%s' "$created" | sed -n 's/.*"secret" *: *"\([^"]*\)".*/\1/p')"
[ -n "$key" ] && [ -n "$secret" ] || die "client create gave no key or secret"
json='{"email":"bench.user@example.com","optout_check":1}'
printf '%s' "$json" >"$dir/v1-generate.json"
refresh_token="$(curl -s -X POST -H "Authorization: Bearer $key" --data-binary "@$dir/v1-generate.json" \
  "$url/v1/token/generate" | sed -n 's/.*"refresh_token":"\([^"]*\)".*/\1/p')"
[ -n "$refresh_token" ] || die "no refresh token"
printf '{"refresh_token":"%s"}' "$refresh_token" >"$dir/v1-refresh.json"
printf '%s' "$refresh_token" >"$dir/v2-refresh.txt"

# run NAME PATH BODY_FILE KEY: one wrk round; prints "requests cpu_us_per_request requests_per_s".
run() {
  local path="$2" body="$3" k="$4" before out requests
  before="$(cpu_ticks "$server_pid")"
  out="$(VEIL_PATH="$path" VEIL_BODY_FILE="$body" VEIL_KEY="$k" taskset -c 1 \
    wrk -t1 -c32 -d"${round}s" -s bench/wrk/post-body.lua "$url" 2>&1)"
  local cpu
  cpu="$(cpu_seconds_since "$server_pid" "$before")"
  requests="$(printf '%s\n' "$out" | awk '/requests in/ {print $1}')"
  local non2xx
  non2xx="$(printf '%s\n' "$out" | awk '/Non-2xx/ {print $NF}')"
  [ -z "$non2xx" ] || die "$1: $non2xx answers were not 2xx"
  awk -v n="$requests" -v c="$cpu" -v s="$round" 'BEGIN { printf "%d %.2f %.0f\n", n, c * 1e6 / n, n / s }'
}

log "node pinned to CPU 0, wrk to CPU 1; ${rounds} rounds of ${round} s per endpoint"
# Warm-up: each endpoint once, not reported.
java -cp "$core" bench/V2Seal.java "$secret" "$json" >"$dir/v2-generate.txt"
run warm /v1/token/generate "$dir/v1-generate.json" "$key" >/dev/null
run warm /v2/token/generate "$dir/v2-generate.txt" "$key" >/dev/null
run warm /v1/token/refresh "$dir/v1-refresh.json" "" >/dev/null
run warm /v2/token/refresh "$dir/v2-refresh.txt" "" >/dev/null
printf '%-6s %-20s %10s %12s %10s\n' round endpoint requests/s cpu_us/req v2/v1
for r in $(seq 1 "$rounds"); do
  java -cp "$core" bench/V2Seal.java "$secret" "$json" >"$dir/v2-generate.txt"
  read -r _ g1 g1s <<<"$(run v1-generate /v1/token/generate "$dir/v1-generate.json" "$key")"
  read -r _ g2 g2s <<<"$(run v2-generate /v2/token/generate "$dir/v2-generate.txt" "$key")"
  read -r _ r1 r1s <<<"$(run v1-refresh /v1/token/refresh "$dir/v1-refresh.json" "")"
  read -r _ r2 r2s <<<"$(run v2-refresh /v2/token/refresh "$dir/v2-refresh.txt" "")"
  printf '%-6s %-20s %10s %12s %10s\n' "$r" "v1 generate" "$g1s" "$g1" ""
  printf '%-6s %-20s %10s %12s %10s\n' "$r" "v2 generate" "$g2s" "$g2" "$(awk -v a="$g2" -v b="$g1" 'BEGIN{printf "%.2f", a/b}')"
  printf '%-6s %-20s %10s %12s %10s\n' "$r" "v1 refresh" "$r1s" "$r1" ""
  printf '%-6s %-20s %10s %12s %10s\n' "$r" "v2 refresh" "$r2s" "$r2" "$(awk -v a="$r2" -v b="$r1" 'BEGIN{printf "%.2f", a/b}')"
done

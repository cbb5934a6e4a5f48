#!/usr/bin/env bash
# Server CPU per request of v2 endpoints against their v1 twins, measured in the same run on the
# same node, one pair per name in PAIRS (default "generate refresh keys"):
#   generate  POST /v1/token/generate against POST /v2/token/generate (the same email, the v2 body
#             sealed with the client's secret just before each of its rounds);
#   refresh   POST /v1/token/refresh against POST /v2/token/refresh (one pre-generated refresh
#             token, as the v1 refresh figure of the main run uses);
#   keys      GET /v1/key/latest against POST /v2/key/bidstream (an ID_READER client; the v2 body
#             an envelope with an empty payload, sealed just before each of its rounds).
# The node runs on a fresh embedded store pinned to CPU 0 and wrk to CPU 1 (1 thread, 32
# connections); each round is ROUND seconds (10) per endpoint, v1 and v2 alternating, ROUNDS
# rounds (3), after one warm-up round of each endpoint. Reports for each: requests/s, server CPU
# microseconds per request (from /proc/<pid>/stat), split into user and system time, and how busy
# the server's core was; v2/v1 per round, of all CPU and of user CPU alone, and the median ratios
# per pair. System time holds the kernel's sending, including its wake-ups of wrk, which cost more
# per request the less busy the server is (docs/benchmarks.md); user time is the JVM's: Veil's
# code, Netty, the JIT compiler and the collector. A run takes (ROUNDS + 1) x 2 x ROUND seconds
# per pair. Loopback only; prints no key, secret or token. Results and the machine:
# docs/benchmarks.md ("The v2 API against v1").
set -euo pipefail
cd "$(dirname "$0")/.."
log_tag=v2-tokens
results=/dev/null
. bench/lib.sh
jar="${JAR:-veil-cli/target/veil.jar}"
[ -f "$jar" ] || die "no $jar: ./mvnw -pl veil-cli -am package -DskipTests"
command -v wrk >/dev/null || die "no wrk: apt-get install -y wrk"
core="$(ls veil-cli/target/lib/veil-core-*.jar | head -1)"
round="${ROUND:-10}"
rounds="${ROUNDS:-3}"
pairs="${PAIRS:-generate refresh keys}"
for pair in $pairs; do
  case "$pair" in generate | refresh | keys) ;; *) die "unknown pair $pair (generate, refresh, keys)" ;; esac
done
dir="$(mktemp -d)"
cleanup() {
  [ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

start_serve "$jar" "$dir" 0
admin_key="$(cat "$dir/data/admin.key")"

# new_client NAME ROLES: a client with its secret; sets client_key and client_secret.
new_client() {
  local created
  created="$(java -jar "$jar" admin --port "$grpc_port" --key "$admin_key" client create \
    --name "$1" --roles "$2" --json 2>/dev/null)"
  client_key="$(printf '%s' "$created" | sed -n 's/.*"api_key" *: *"\([^"]*\)".*/\1/p')"
  client_secret="$(printf '%s' "$created" | sed -n 's/.*"secret" *: *"\([^"]*\)".*/\1/p')"
  [ -n "$client_key" ] && [ -n "$client_secret" ] || die "client create gave no key or secret"
}

new_client bench GENERATOR
key="$client_key"
secret="$client_secret"
json='{"email":"bench.user@example.com","optout_check":1}'
printf '%s' "$json" >"$dir/v1-generate.json"
refresh_token="$(curl -s -X POST -H "Authorization: Bearer $key" --data-binary "@$dir/v1-generate.json" \
  "$url/v1/token/generate" | sed -n 's/.*"refresh_token":"\([^"]*\)".*/\1/p')"
[ -n "$refresh_token" ] || die "no refresh token"
printf '{"refresh_token":"%s"}' "$refresh_token" >"$dir/v1-refresh.json"
printf '%s' "$refresh_token" >"$dir/v2-refresh.txt"
new_client bench-reader ID_READER
reader_key="$client_key"
reader_secret="$client_secret"

# seal SECRET JSON FILE: a v2 request envelope of JSON, stamped now, into FILE.
seal() { java -cp "$core" bench/V2Seal.java "$1" "$2" >"$3"; }

# fresh_body PAIR: seals that pair's v2 body anew, if it carries the client's clock (the server
# accepts it for two minutes).
fresh_body() {
  case "$1" in
    generate) seal "$secret" "$json" "$dir/v2-generate.txt" ;;
    keys) seal "$reader_secret" "" "$dir/v2-bidstream.txt" ;;
  esac
}

# The process's user and system CPU time so far, in clock ticks: "user system".
user_sys_ticks() { awk '{ print $14, $15 }' "/proc/$1/stat"; }

# run NAME METHOD PATH BODY_FILE KEY: one wrk round; prints "requests_per_s cpu_us_per_request
# user_us_per_request system_us_per_request busy_percent" (busy: the server's CPU time over the
# round's). GET sends no body (BODY_FILE is ignored).
run() {
  local method="$2" path="$3" body="$4" k="$5" script u0 s0 u1 s1 out requests non2xx
  script=bench/wrk/post-body.lua
  [ "$method" = GET ] && script=bench/wrk/get-fixed.lua
  read -r u0 s0 <<<"$(user_sys_ticks "$server_pid")"
  out="$(VEIL_PATH="$path" VEIL_BODY_FILE="$body" VEIL_KEY="$k" taskset -c 1 \
    wrk -t1 -c32 -d"${round}s" -s "$script" "$url" 2>&1)"
  read -r u1 s1 <<<"$(user_sys_ticks "$server_pid")"
  requests="$(printf '%s\n' "$out" | awk '/requests in/ {print $1}')"
  non2xx="$(printf '%s\n' "$out" | awk '/Non-2xx/ {print $NF}')"
  [ -z "$non2xx" ] || die "$1: $non2xx answers were not 2xx"
  awk -v n="$requests" -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v t="$(getconf CLK_TCK)" -v d="$round" \
    'BEGIN { printf "%.0f %.2f %.2f %.2f %.0f\n", n / d, (u + s) / t * 1e6 / n, u / t * 1e6 / n,
      s / t * 1e6 / n, 100 * (u + s) / t / d }'
}

# The two sides of each pair: label, method, path, body file, key.
side() {
  case "$1/$2" in
    generate/v1) echo "v1-generate POST /v1/token/generate $dir/v1-generate.json $key" ;;
    generate/v2) echo "v2-generate POST /v2/token/generate $dir/v2-generate.txt $key" ;;
    refresh/v1) echo "v1-refresh POST /v1/token/refresh $dir/v1-refresh.json -" ;;
    refresh/v2) echo "v2-refresh POST /v2/token/refresh $dir/v2-refresh.txt -" ;;
    keys/v1) echo "v1-key-latest GET /v1/key/latest - $reader_key" ;;
    keys/v2) echo "v2-key-bidstream POST /v2/key/bidstream $dir/v2-bidstream.txt $reader_key" ;;
  esac
}

# run_side PAIR VERSION: one round of that side, a v2 body sealed just before it; the "-"
# placeholders become empty.
run_side() {
  local label method path body k
  [ "$2" = v2 ] && fresh_body "$1"
  read -r label method path body k <<<"$(side "$1" "$2")"
  [ "$body" = - ] && body=/dev/null
  [ "$k" = - ] && k=""
  run "$label" "$method" "$path" "$body" "$k"
}

# The answers' sizes (bytes, not their content), to read the figures by.
fresh_body generate
fresh_body keys
size() { curl -s -o /dev/null -w '%{size_download}' "$@"; }
as_generator=(-H "Authorization: Bearer $key" -X POST)
as_reader=(-H "Authorization: Bearer $reader_key")
v1_generate="$(size "${as_generator[@]}" --data-binary "@$dir/v1-generate.json" "$url/v1/token/generate")"
v2_generate="$(size "${as_generator[@]}" --data-binary "@$dir/v2-generate.txt" "$url/v2/token/generate")"
v1_latest="$(size "${as_reader[@]}" "$url/v1/key/latest")"
latest_keys="$(curl -s "${as_reader[@]}" "$url/v1/key/latest" | grep -o '"id":' | wc -l)"
v2_bidstream="$(size "${as_reader[@]}" -X POST --data-binary "@$dir/v2-bidstream.txt" "$url/v2/key/bidstream")"
log "answer bytes: v1 generate $v1_generate, v2 generate $v2_generate," \
  "v1 key/latest $v1_latest ($latest_keys keys), v2 key/bidstream $v2_bidstream"

log "node pinned to CPU 0, wrk to CPU 1; pairs: $pairs; ${rounds} rounds of ${round} s per endpoint"
for pair in $pairs; do # warm-up, not reported
  run_side "$pair" v1 >/dev/null
  run_side "$pair" v2 >/dev/null
done
line() { printf '%-6s %-18s %10s %10s %9s %9s %6s %7s %7s\n' "$@"; }
line round endpoint requests/s cpu_us/req user_us sys_us busy% v2/v1 user
ratios="$dir/ratios"
for r in $(seq 1 "$rounds"); do
  for pair in $pairs; do
    read -r s1 c1 u1 y1 b1 <<<"$(run_side "$pair" v1)"
    read -r s2 c2 u2 y2 b2 <<<"$(run_side "$pair" v2)"
    ratio="$(awk -v a="$c2" -v b="$c1" 'BEGIN{printf "%.2f", a/b}')"
    user_ratio="$(awk -v a="$u2" -v b="$u1" 'BEGIN{printf "%.2f", a/b}')"
    echo "$pair $ratio $user_ratio" >>"$ratios"
    line "$r" "$(side "$pair" v1 | cut -d' ' -f1)" "$s1" "$c1" "$u1" "$y1" "$b1" "" ""
    line "$r" "$(side "$pair" v2 | cut -d' ' -f1)" "$s2" "$c2" "$u2" "$y2" "$b2" "$ratio" "$user_ratio"
  done
done
for pair in $pairs; do
  printf 'median v2/v1 %-9s %s (user CPU alone: %s)\n' "$pair" \
    "$(awk -v p="$pair" '$1 == p {print $2}' "$ratios" | median)" \
    "$(awk -v p="$pair" '$1 == p {print $3}' "$ratios" | median)"
done

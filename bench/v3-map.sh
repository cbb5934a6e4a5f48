#!/usr/bin/env bash
# Server CPU per identifier of POST /v3/identity/map (in the v2 envelope) against POST
# /v1/identity/map, measured in the same run on the same node: the same 1,000 emails
# (user<n>@example.com) in each request, v1 as a JSON body, v3 sealed with the client's secret
# just before each of its rounds, as raw bytes (application/octet-stream, how UID2's SDK sends it)
# and, when FORMS includes base64, also as base64 text. The node runs on a fresh embedded store
# with BUCKETS salt buckets (1,048,576), of which ROTATED (0.25, about what the default daily
# rotation of 1/365 leaves within the 90 days of `p`) are rotated once before the load, so that
# about that share of the answers carry a previous id. Node pinned to CPU 0, wrk (1 thread, 16
# connections) to CPU 1; each round is ROUND seconds (8) per endpoint, alternating, ROUNDS rounds
# (3) after a warm-up round of each. With SETS=n (1), requests cycle through n bodies of different
# emails (n × 1,000 distinct identifiers, as a collector mapping a large file sends them) instead of
# repeating one. Reports per endpoint: requests/s, server CPU microseconds per
# identifier (from /proc/<pid>/stat), split into user and system time, how busy the server's core
# was; v3/v1 per round (all CPU and user CPU alone) and the medians. Loopback only; prints no key,
# secret or token. Results and the machine: docs/benchmarks.md ("v3 identity map against v1").
set -euo pipefail
cd "$(dirname "$0")/.."
log_tag=v3-map
results=/dev/null
. bench/lib.sh
jar="${JAR:-veil-cli/target/veil.jar}"
[ -f "$jar" ] || die "no $jar: ./mvnw -pl veil-cli -am package -DskipTests"
command -v wrk >/dev/null || die "no wrk: apt-get install -y wrk"
core="$(ls veil-cli/target/lib/veil-core-*.jar | head -1)"
round="${ROUND:-8}"
rounds="${ROUNDS:-3}"
buckets="${BUCKETS:-1048576}"
rotated="${ROTATED:-0.25}"
forms="${FORMS:-binary}"
sets="${SETS:-1}"
batch=1000
dir="$(mktemp -d)"
cleanup() {
  [ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

taskset -c 0 java -jar "$jar" serve --data-dir "$dir/data" --port 0 --grpc-port 0 --console-port 0 \
  --set "salt.buckets=$buckets" >"$dir/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 240); do
  grep -q "admin gRPC" "$dir/server.log" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$dir/server.log" >&2; die "veil serve did not start"; }
  sleep 0.5
done
url="http://127.0.0.1:$(sed -n 's|.*public API *http://[^:]*:\([0-9]*\)/.*|\1|p' "$dir/server.log" | head -1)"
grpc_port="$(sed -n 's|.*admin gRPC *[^:]*:\([0-9]*\).*|\1|p' "$dir/server.log" | head -1)"
admin_key="$(cat "$dir/data/admin.key")"
admin() { java -jar "$jar" admin --port "$grpc_port" --key "$admin_key" "$@" 2>/dev/null; }

created="$(admin client create --name bench --roles MAPPER --json)"
key="$(printf '%s' "$created" | sed -n 's/.*"api_key" *: *"\([^"]*\)".*/\1/p')"
secret="$(printf '%s' "$created" | sed -n 's/.*"secret" *: *"\([^"]*\)".*/\1/p')"
[ -n "$key" ] && [ -n "$secret" ] || die "client create gave no key or secret"
log "$(admin salts rotate --fraction "$rotated")"

# body OFFSET: a v1 body of emails user<OFFSET>@example.com to user<OFFSET + batch - 1>@example.com.
body() {
  awk -v n="$batch" -v o="$1" 'BEGIN { printf "{\"email\":["; for (i = 0; i < n; i++)
    printf "%s\"user%d@example.com\"", (i ? "," : ""), o + i; printf "]}" }'
}
json="$(body 0)"
for s in $(seq 1 "$sets"); do
  body $(((s - 1) * batch)) >"$dir/v1-body$s"
done

# seal FORM: the first v3 body sealed now (valid for two minutes) into $dir/v3-FORM.
seal() {
  java -cp "$core" bench/V2Seal.java "$secret" "$json" $([ "$1" = binary ] && echo binary) \
    >"$dir/v3-$1"
}
# seal_all FORM: every v3 body sealed now into $dir/v3-FORM-1 and on.
seal_all() {
  java -cp "$core" bench/V2Seal.java "$secret" --files "$dir/v1-body" "$dir/v3-$1-" "$sets" \
    $([ "$1" = binary ] && echo binary)
}
content_type() { [ "$1" = binary ] && echo application/octet-stream || echo application/json; }

user_sys_ticks() { awk '{ print $14, $15 }' "/proc/$1/stat"; }

# run PATH BODY_PREFIX CONTENT_TYPE: one wrk round over the bodies BODY_PREFIX1 … BODY_PREFIX$sets;
# prints "requests_per_s cpu_us_per_id user_us_per_id system_us_per_id busy_percent".
run() {
  local u0 s0 u1 s1 out requests non2xx
  read -r u0 s0 <<<"$(user_sys_ticks "$server_pid")"
  out="$(VEIL_PATH="$1" VEIL_BODY_PREFIX="$2" VEIL_BODY_COUNT="$sets" VEIL_CONTENT_TYPE="$3" \
    VEIL_KEY="$key" taskset -c 1 wrk -t1 -c16 -d"${round}s" -s bench/wrk/post-bodies.lua "$url" 2>&1)"
  read -r u1 s1 <<<"$(user_sys_ticks "$server_pid")"
  requests="$(printf '%s\n' "$out" | awk '/requests in/ {print $1}')"
  non2xx="$(printf '%s\n' "$out" | awk '/Non-2xx/ {print $NF}')"
  [ -z "$non2xx" ] || die "$1: $non2xx answers were not 2xx"
  awk -v n="$requests" -v b="$batch" -v u=$((u1 - u0)) -v s=$((s1 - s0)) \
    -v t="$(getconf CLK_TCK)" -v d="$round" 'BEGIN { m = n * b
      printf "%.1f %.3f %.3f %.3f %.0f\n", n / d, (u + s) / t * 1e6 / m, u / t * 1e6 / m,
        s / t * 1e6 / m, 100 * (u + s) / t / d }'
}
run_v1() { run /v1/identity/map "$dir/v1-body" application/json; }
run_v3() { seal_all "$1" && run /v3/identity/map "$dir/v3-$1-" "$(content_type "$1")"; }

# What the answers hold, to read the figures by: bytes, and how many v3 entries carry a "p".
V2SEAL_NONCE=7 seal base64
v1_bytes="$(curl -s -o /dev/null -w '%{size_download}' -H "Authorization: Bearer $key" \
  --data-binary "@$dir/v1-body1" "$url/v1/identity/map")"
v3_bytes="$(curl -s -o "$dir/v3-answer" -w '%{size_download}' -H "Authorization: Bearer $key" \
  --data-binary "@$dir/v3-base64" "$url/v3/identity/map")"
with_p="$(java -cp "$core" bench/V2Open.java "$secret" 7 <"$dir/v3-answer" | grep -o '"p":"' | wc -l)"
log "answer bytes: v1 $v1_bytes, v3 (base64) $v3_bytes; v3 entries with a previous id: $with_p of $batch"
log "$buckets buckets, $rotated rotated; $sets set(s) of $batch emails; node on CPU 0, wrk on CPU 1; $rounds rounds of $round s"

run_v1 >/dev/null # warm-up, not reported
for form in $forms; do run_v3 "$form" >/dev/null; done
line() { printf '%-6s %-12s %10s %10s %9s %9s %6s %7s %7s\n' "$@"; }
line round endpoint requests/s cpu_us/id user_us sys_us busy% v3/v1 user
ratios="$dir/ratios"
for r in $(seq 1 "$rounds"); do
  read -r s1 c1 u1 y1 b1 <<<"$(run_v1)"
  line "$r" v1 "$s1" "$c1" "$u1" "$y1" "$b1" "" ""
  for form in $forms; do
    read -r s2 c2 u2 y2 b2 <<<"$(run_v3 "$form")"
    ratio="$(awk -v a="$c2" -v b="$c1" 'BEGIN{printf "%.2f", a/b}')"
    user_ratio="$(awk -v a="$u2" -v b="$u1" 'BEGIN{printf "%.2f", a/b}')"
    echo "$form $ratio $user_ratio" >>"$ratios"
    line "$r" "v3-$form" "$s2" "$c2" "$u2" "$y2" "$b2" "$ratio" "$user_ratio"
  done
done
for form in $forms; do
  printf 'median v3-%s/v1 %s (user CPU alone: %s)\n' "$form" \
    "$(awk -v p="$form" '$1 == p {print $2}' "$ratios" | median)" \
    "$(awk -v p="$form" '$1 == p {print $3}' "$ratios" | median)"
done

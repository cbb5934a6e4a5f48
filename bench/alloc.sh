#!/usr/bin/env bash
# Bytes allocated per request by `veil serve`, for generate, map GET and map POST (1,000 and 5,000
# emails). Unlike throughput, this does not depend on what else runs on the machine, so it is the
# figure to compare before and after a change on a busy machine.
#
#   bench/alloc.sh [--no-build] [generate|map_get|map_post_1000|map_post_5000 ...]
#
# Method: the server runs with the Epsilon collector (which never frees memory) and a 12 GiB heap,
# so the heap's used size grows by exactly what is allocated. After a warm-up (wrk, 8 s), the
# script reads the used size (jcmd GC.heap_info) and the route's request count (/metrics), runs wrk
# for 5 s, reads both again and prints the difference of the first over the difference of the
# second. Background work of the server (the 1 s store sync) is included and is noise below 0.5 %.
# Needs wrk, jcmd and curl; uses ports 18580-18581.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
port=18580
grpc_port=18581
work="$(mktemp -d /tmp/veil-alloc.XXXXXX)"
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

if [ "${1:-}" = --no-build ]; then
  shift
else
  ./mvnw -q -B -DskipTests -pl veil-cli -am package
fi
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(generate map_get map_post_1000 map_post_5000)

# Ready, and the admin key written (the server writes it just after it turns ready).
ready() {
  local i
  for i in $(seq 600); do
    if [ -s "$work/data/admin.key" ] \
        && [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/ops/readyz" || true)" = 200 ]; then
      return 0
    fi
    sleep 0.05
  done
  echo "alloc: veil serve not ready" >&2
  exit 1
}

java -XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC -Xms12g -Xmx12g -jar veil-cli/target/veil.jar serve \
  --data-dir "$work/data" --port "$port" --grpc-port "$grpc_port" --console-port 0 --set salt.buckets=1048576 >"$work/serve.log" 2>&1 &
pid=$!
ready
VEIL_KEY="$(java -jar veil-cli/target/veil.jar admin client create --name alloc --roles GENERATOR,MAPPER \
  --port "$grpc_port" --key "$(head -n 1 "$work/data/admin.key")" 2>&1 \
  | grep -oE 'vk1\.[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{43}' | head -n 1)"
export VEIL_KEY

# Epsilon prints "space <size>K, N% used [<start>, <top>, <end>)": used = top - start.
heap_used() {
  jcmd "$pid" GC.heap_info | grep -m 1 ' space ' | sed -E 's/.*\[0x([0-9a-f]+), 0x([0-9a-f]+),.*/\1 \2/' \
    | { read -r start top; echo $((0x$top - 0x$start)); }
}

requests() {
  curl -s "http://127.0.0.1:$port/metrics" | awk -v series="$1" 'index($0, series) == 1 { print $2 }'
}

for case in "${cases[@]}"; do
  unset VEIL_PATH VEIL_PATH_PREFIX VEIL_BODY_FILE
  case "$case" in
    generate) route=/v1/token/generate method=GET lua=bench/wrk/get-varied.lua
      export VEIL_PATH_PREFIX="/v1/token/generate?email=" ;;
    map_get) route=/v1/identity/map method=GET lua=bench/wrk/get-varied.lua
      export VEIL_PATH_PREFIX="/v1/identity/map?email=" ;;
    map_post_*) route=/v1/identity/map method=POST lua=bench/wrk/post-body.lua n="${case#map_post_}"
      export VEIL_PATH=/v1/identity/map VEIL_BODY_FILE="$work/batch-$n.json"
      awk -v n="$n" 'BEGIN { printf "{\"email\":["; for (i = 0; i < n; i++) printf "%s\"user%d@example.com\"", (i ? "," : ""), i; printf "]}" }' \
        >"$VEIL_BODY_FILE" ;;
    *) echo "alloc: unknown case $case" >&2; exit 2 ;;
  esac
  series="veil_http_requests_total{route=\"$route\",method=\"$method\",status=\"200\"}"
  wrk -t1 -c16 -d8s -s "$lua" "http://127.0.0.1:$port" >/dev/null
  c0=$(requests "$series"); u0=$(heap_used)
  wrk -t1 -c16 -d5s -s "$lua" "http://127.0.0.1:$port" >/dev/null
  c1=$(requests "$series"); u1=$(heap_used)
  echo "alloc.$case.bytes_per_request=$(( (u1 - u0) / (c1 - c0) )) ($((c1 - c0)) requests)"
done

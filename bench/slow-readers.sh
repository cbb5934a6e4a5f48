#!/usr/bin/env bash
# What a node holds for clients that ask for GET /v1/identity/buckets and never read the answer:
# heap used after a full GC, native memory (NMT "Other": Netty's direct buffers) and the stream
# metrics, with 0, 50, 200 and 400 such clients (1,048,576 buckets, -Xmx1g as deploy/systemd runs
# it); and the time and server CPU of a full download by a client that reads. Results and the
# machine they were measured on: docs/benchmarks.md ("Slow readers of the buckets answer").
#   bench/slow-readers.sh                      # the build in veil-cli/target
#   bench/slow-readers.sh 0 400                # other numbers of clients
#   SETS="--set limits.stream-buffer-bytes=4194304" bench/slow-readers.sh 400
#   JAR=/path/to/old/veil.jar SETS= bench/slow-readers.sh   # an older build (no stream settings)
# Each number of clients is held for WAIT seconds (30) before the measurement. Loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
log_tag=slow-readers
results=/dev/null
. bench/lib.sh
jar="${JAR:-veil-cli/target/veil.jar}"
[ -f "$jar" ] || die "no $jar: ./mvnw -pl veil-cli -am package -DskipTests"
sets="${SETS-}"
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(0 50 200 400)
data="$(mktemp -d)"
server=""
readers=""
cleanup() {
  [ -n "$readers" ] && kill "$readers" 2>/dev/null || true
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT

# Stalled streams stay as they are while they are measured: no idle or stall timeout closes them.
stream_sets="--set http.idle-timeout=10m"
[ -z "${JAR:-}" ] && stream_sets="$stream_sets --set http.stream-stall-timeout=10m"
# shellcheck disable=SC2086
java -Xmx1g -XX:+ExitOnOutOfMemoryError -XX:NativeMemoryTracking=summary -jar "$jar" serve --data-dir "$data" \
  --port 0 --grpc-port 0 --console-port 0 $stream_sets $sets >"$data/server.log" 2>&1 &
server=$!
for _ in $(seq 1 600); do grep -q 'admin gRPC' "$data/server.log" && break; sleep 0.2; done
http=$(grep -oE 'public API +http://127.0.0.1:[0-9]+' "$data/server.log" | grep -oE '[0-9]+$') || die "no start"
grpc=$(grep -oE 'admin gRPC +127.0.0.1:[0-9]+' "$data/server.log" | grep -oE '[0-9]+$')
create_api_key "$data/admin.key" "$grpc" MAPPER
url="http://127.0.0.1:$http/v1/identity/buckets?since_timestamp=1"
log "machine: $(nproc) cores, $(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo), load $(cut -d' ' -f1-3 /proc/loadavg)"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
for _ in 1 2 3; do curl -s -o /dev/null -H "Authorization: Bearer $api_key" "$url"; done
for _ in 1 2 3 4 5; do
  before=$(cpu_ticks)
  line=$(curl -s -o /dev/null -w '%{http_code} %{size_download} %{time_total}' -H "Authorization: Bearer $api_key" "$url")
  echo "download: status, bytes, seconds: $line; server CPU $(( ($(cpu_ticks) - before) * 1000 / $(getconf CLK_TCK) )) ms"
done

for n in "${counts[@]}"; do
  if [ "$n" -gt 0 ]; then
    java bench/SlowReaders.java "$http" "$api_key" "$n" >/dev/null &
    readers=$!
    sleep "${WAIT:-30}"
  fi
  if ! kill -0 "$server" 2>/dev/null; then
    echo "N=$n: the node exited: $(grep -h 'OutOfMemoryError' "$data/server.log" || tail -n 1 "$data/server.log")"
    exit 0
  fi
  jcmd "$server" GC.run >/dev/null
  heap=$(jcmd "$server" GC.heap_info | grep -oE 'used [0-9]+K' | head -n 1)
  other=$(jcmd "$server" VM.native_memory summary | grep -E -- '- +Other' | grep -oE 'committed=[0-9]+KB')
  metrics=$(curl -s "http://127.0.0.1:$http/metrics" | { grep -E '^veil_http_stream_(buffered_bytes|waiting) ' || true; } | tr '\n' ' ')
  echo "N=$n: heap $heap after a full GC, native Other $other, $metrics"
  if [ -n "$readers" ]; then
    kill "$readers"; wait "$readers" 2>/dev/null || true; readers=""
    sleep 5
  fi
done

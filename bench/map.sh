#!/usr/bin/env bash
# Benchmark of `veil map` (issue 5): 1,000,000 emails mapped end to end through a local server,
# compared with the server's own POST /v1/identity/map throughput measured in the same run.
#
#   bench/map.sh            # 1,000,000 emails
#   N=200000 bench/map.sh   # fewer, for a quick look
#
# Order: server alone, veil map, server alone again (the machine may be shared: the two server
# runs show how much the background moved). Reports identifiers/s, wall and CPU seconds and the
# peak resident memory of the veil map process (GNU time), and the ratios. Results go to
# docs/benchmarks-client.md by hand, with the machine and this command.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${N:-1000000}"
client_opts="${VEIL_JAVA_OPTS:-}"
work="$(mktemp -d /tmp/veil-map-bench.XXXXXX)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "== build" >&2
(cd "$here" && ./mvnw -q -B -DskipTests -pl veil-server -am package) >&2
jar="$here/veil-server/target/veil.jar"

echo "== start veil serve (default 1,048,576 buckets, embedded store in $work)" >&2
java -jar "$jar" serve --data-dir "$work/data" --port 0 --grpc-port 0 >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 240); do
  grep -q "admin gRPC" "$work/server.log" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.5
done
http_port="$(sed -n 's|.*public API *http://[^:]*:\([0-9]*\)/.*|\1|p' "$work/server.log" | head -1)"
grpc_port="$(sed -n 's|.*admin gRPC *[^:]*:\([0-9]*\).*|\1|p' "$work/server.log" | head -1)"
url="http://127.0.0.1:$http_port"
key="$(java -jar "$jar" admin --port "$grpc_port" --key "$(cat "$work/data/admin.key")" client create \
  --name bench --roles MAPPER | sed -n 's/^API key: //p')"

echo "== $n emails" >&2
awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "user%d.%d@example%d.com\n", i, (i * 7919) % 1000003, i % 97 }' \
  >"$work/emails.txt"

cpu_of() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }   # utime + stime, in clock ticks
ticks="$(getconf CLK_TCK)"

server_alone() {
  local before after line
  before="$(cpu_of "$server_pid")"
  line="$(java "$here/bench/MapLoad.java" "$url" "$key" "$work/emails.txt" "$1")"
  after="$(cpu_of "$server_pid")"
  echo "$line server_cpu_s=$(awk -v a="$after" -v b="$before" -v t="$ticks" 'BEGIN { printf "%.1f", (a - b) / t }')"
}

echo "== server alone, 1 connection (requests in sequence, like veil map)" >&2
s1="$(server_alone 1)"; echo "   $s1" >&2
echo "== server alone, 2 connections" >&2
s2="$(server_alone 2)"; echo "   $s2" >&2

echo "== veil map --in emails.txt --out mapped.csv (JVM options: ${client_opts:-default})" >&2
before="$(cpu_of "$server_pid")"
start="$(date +%s.%N)"
VEIL_API_KEY="$key" /usr/bin/time -f "client_wall_s=%e client_cpu_s=%U+%S client_max_rss_kb=%M" -o "$work/time.txt" \
  java $client_opts -jar "$jar" map --in "$work/emails.txt" --out "$work/mapped.csv" --url "$url" \
  --progress lines 2>"$work/map.log"
end="$(date +%s.%N)"
after="$(cpu_of "$server_pid")"
sed 's/^/   /' "$work/map.log" >&2
rows="$(($(wc -l <"$work/mapped.csv") - 1))"
[ "$rows" -eq "$n" ] || { echo "expected $n rows, got $rows" >&2; exit 1; }
client_rate="$(awk -v n="$n" -v s="$start" -v e="$end" 'BEGIN { printf "%.0f", n / (e - s) }')"
server_cpu="$(awk -v a="$after" -v b="$before" -v t="$ticks" 'BEGIN { printf "%.1f", (a - b) / t }')"

echo "== server alone again, 1 connection" >&2
s3="$(server_alone 1)"; echo "   $s3" >&2

rate() { sed 's/.*ids_per_s=\([0-9]*\).*/\1/' <<<"$1"; }
seq_mean="$(( ($(rate "$s1") + $(rate "$s3")) / 2 ))"
echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "java: $(java -version 2>&1 | head -1)"
echo "server alone, 1 connection:  $s1"
echo "server alone, 2 connections: $s2"
echo "server alone, 1 connection:  $s3"
echo "veil map end to end:         ids_per_s=$client_rate $(cat "$work/time.txt") server_cpu_s=$server_cpu"
echo "ratio to the server alone (1 connection, mean of both runs): $(awk -v c="$client_rate" -v s="$seq_mean" 'BEGIN { printf "%.0f %%", 100 * c / s }')"
echo "ratio to the server alone (2 connections): $(awk -v c="$client_rate" -v s="$(rate "$s2")" 'BEGIN { printf "%.0f %%", 100 * c / s }')"

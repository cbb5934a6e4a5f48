#!/usr/bin/env bash
# Benchmark of `veil map` (issue 5): 1,000,000 emails mapped end to end through a local server,
# compared with the server's own POST /v1/identity/map throughput measured in the same run.
#
#   bench/map.sh                      # 1,000,000 emails, 3 rounds
#   N=200000 REPEAT=1 bench/map.sh    # a quick look
#
# Each round measures, in this order: the server alone with one connection (requests in
# sequence), the server alone with two connections (two requests in flight, as veil map keeps),
# and `./veil map --in emails.txt --out mapped.csv` from scratch (no cache file) under GNU time:
# wall time from start to exit (JVM start included), CPU of both processes, peak resident memory
# of veil map. Rounds alternate so that a machine shared with other work weighs on all three
# alike; the summary gives each figure's median over the rounds and the medians of the per-round
# ratios. VEIL_JAVA_OPTS, if set, replaces the launcher's JVM options for veil map. Results go to
# docs/benchmarks-client.md by hand, with the machine and this command.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${N:-1000000}"
rounds="${REPEAT:-3}"
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
seconds_since() { awk -v a="$(cpu_of "$server_pid")" -v b="$1" -v t="$ticks" 'BEGIN { printf "%.2f", (a - b) / t }'; }

# Prints "<ids/s> <server CPU s>".
server_alone() {
  local before line
  before="$(cpu_of "$server_pid")"
  line="$(java "$here/bench/MapLoad.java" "$url" "$key" "$work/emails.txt" "$1")"
  echo "$(sed 's/.*ids_per_s=\([0-9]*\).*/\1/' <<<"$line") $(seconds_since "$before")"
}

# Prints "<ids/s> <wall s> <client CPU s> <peak RSS MB> <server CPU s>".
veil_map() {
  local before start end
  rm -f "$work/mapped.csv" "$work/mapped.csv.veil-cache" "$work/mapped.csv.veil-cache.lock"
  before="$(cpu_of "$server_pid")"
  start="$(date +%s.%N)"
  VEIL_API_KEY="$key" /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" \
    "$here/veil" map --in "$work/emails.txt" --out "$work/mapped.csv" --url "$url" --progress lines 2>"$work/map.log"
  end="$(date +%s.%N)"
  local server_cpu rows
  server_cpu="$(seconds_since "$before")"
  rows="$(($(wc -l <"$work/mapped.csv") - 1))"
  [ "$rows" -eq "$n" ] || { cat "$work/map.log" >&2; echo "expected $n rows, got $rows" >&2; exit 1; }
  read -r wall user sys rss <"$work/time.txt"
  awk -v n="$n" -v s="$start" -v e="$end" -v w="$wall" -v u="$user" -v y="$sys" -v r="$rss" -v c="$server_cpu" \
    'BEGIN { printf "%.0f %.2f %.2f %.0f %s\n", n / (e - s), w, u + y, r / 1024, c }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
: >"$work/rounds.txt"
for round in $(seq 1 "$rounds"); do
  echo "== round $round of $rounds (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  read -r one one_cpu <<<"$(server_alone 1)"
  echo "   server alone, 1 connection:  $one ids/s, server CPU ${one_cpu} s" >&2
  read -r two two_cpu <<<"$(server_alone 2)"
  echo "   server alone, 2 connections: $two ids/s, server CPU ${two_cpu} s" >&2
  read -r rate wall cpu rss map_server_cpu <<<"$(veil_map)"
  echo "   veil map: $rate ids/s, wall ${wall} s, client CPU ${cpu} s, peak RSS ${rss} MB, server CPU ${map_server_cpu} s" >&2
  sed 's/^/      /' "$work/map.log" | grep -v "mapping .*left" >&2 || true
  echo "$one $two $rate $wall $cpu $rss $map_server_cpu $one_cpu $two_cpu" >>"$work/rounds.txt"
done

col() { awk -v c="$1" '{ print $c }' "$work/rounds.txt" | median; }
ratio() { awk -v a="$1" -v b="$2" '{ print 100 * $a / $b }' "$work/rounds.txt" | median; }
per_id() { awk -v s="$1" -v n="$n" 'BEGIN { printf "%.2f", s * 1e6 / n }'; }
echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "java: $(java -version 2>&1 | head -1); veil map JVM options: ${VEIL_JAVA_OPTS-launcher default}"
echo "rounds: $rounds, $n emails; per round: server alone 1 connection, 2 connections, veil map"
echo "median server alone, 1 connection:  $(col 1) ids/s (server CPU $(per_id "$(col 8)") us/id)"
echo "median server alone, 2 connections: $(col 2) ids/s (server CPU $(per_id "$(col 9)") us/id)"
echo "median veil map end to end:         $(col 3) ids/s, wall $(col 4) s, client CPU $(col 5) s ($(per_id "$(col 5)") us/id), server CPU $(per_id "$(col 7)") us/id, peak RSS $(col 6) MB"
echo "median ratio to the server alone, 1 connection:  $(printf '%.0f' "$(ratio 3 1)") %"
echo "median ratio to the server alone, 2 connections: $(printf '%.0f' "$(ratio 3 2)") %"
echo "rounds (server 1 conn ids/s, 2 conn ids/s, veil map ids/s, wall s, client CPU s, RSS MB, server CPU s during veil map):"
sed 's/^/  /' "$work/rounds.txt"

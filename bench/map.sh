#!/usr/bin/env bash
# Benchmark of `veil map`: 1,000,000 emails mapped end to end through a local server,
# compared with the server's own POST /v1/identity/map throughput measured in the same run.
#
#   bench/map.sh                      # 1,000,000 emails, 3 rounds
#   N=200000 REPEAT=1 bench/map.sh    # a quick look
#   bench/map.sh engines              # the release before the mapping cache against veil map on
#                                     # the cache, v1 and v3 (bench/map-engines.sh)
#
# The server gets the same CPU in every measurement of a round: with 2 or more CPUs it runs on one
# and every client (wrk, MapLoad, veil map) on the other, as if the client were on a machine of its
# own with one core (odd rounds: server on CPU 0; even rounds: on CPU 1, since one core of a shared
# virtual machine can be slower than the other for minutes; bench/CpuSpeed.java measures each core
# at the start of each round); on one CPU nothing is pinned. The emails are cut into bodies of 5,000 (veil map's batch).
# Each round measures, in this order:
#   1. the server's own throughput: wrk, 4 connections (veil map keeps 4 requests in flight),
#      posting the bodies in turn for half of SECONDS_PER_RUN (wrk costs next to nothing per
#      request);
#   2. for comparison, the same with a hand-written JDK HttpClient client (bench/MapLoad.java):
#      bodies prepared before the clock starts, 4 connections, every answer read whole;
#   3. `./veil map --in emails.txt --out mapped.csv` from scratch (no output or state file) under GNU time:
#      wall time from start to exit (JVM start included), CPU of both processes, peak resident
#      memory of veil map;
#   3'. the floor (bench/MapFloor.java): the least a Java 17 client can do for the same file (no
#      cache, no checks), measured the same way, with veil map's JVM options and a class-data
#      archive of its own. Its ratio is the best any client of this JVM reaches on the machine;
#      veil map's ratio to it is what veil map's own work costs;
#   3''. the floor with a cache (MapFloor ... cache): the floor plus the least any crash-safe cache
#      costs (checks, an index, an append-only log of every email and mapping, forced every quarter
#      second). Its ratio is the best a client with such a cache reaches; veil map's ratio to it is
#      what veil map's own design costs;
#   3'''. the floor with checkpointed output (MapFloor ... resume): the floor plus what a client
#      needs to resume when its output is its only record (each email checked, and every quarter
#      second the CSV forced and a checkpoint of how far it goes appended and forced; no index, no
#      copy of the emails). Odd rounds run veil map, the floor, the floor with a cache, the floor
#      with checkpointed output; even rounds the reverse;
#   4. wrk again for the other half. The server's throughput of the round is the mean of 1 and 4,
#      which bracket veil map: this machine's speed can move by tens of percent within a minute,
#      and a reference taken on one side only would carry such a swing into the ratio.
# Before the rounds, wrk warms the server up (JIT, salts computed on first use) and one small
# veil map writes the launcher's class-data archive (as the first run after a build does).
# Rounds alternate so that a machine shared with other work weighs on all three alike; the summary
# gives each figure's median over the rounds and the medians of the per-round ratios.
# VEIL_JAVA_OPTS, if set, replaces the launcher's JVM options for veil map. Results go to
# docs/benchmarks-client.md by hand, with the machine and this command.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# `bench/map.sh engines`: the release before the mapping cache against veil map on v1 and v3.
if [ "${1:-}" = engines ]; then exec "$here/bench/map-engines.sh"; fi
# shellcheck source=bench/lib.sh
. "$here/bench/lib.sh"
n="${N:-1000000}"
rounds="${REPEAT:-3}"
seconds="${SECONDS_PER_RUN:-4}"
half="$(( (seconds + 1) / 2 ))" # whole seconds of wrk before and after veil map
work="$(mktemp -d /tmp/veil-map-bench.XXXXXX)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
log_tag=map
require_tools wrk taskset
if [ "$(nproc)" -ge 2 ]; then
  server_cpus=0 client_cpus=1
else
  server_cpus="" client_cpus=""
fi

results="$work/results.properties"
cd "$here"
log "build"
./mvnw -q -B -DskipTests -pl veil-cli -am package >&2
jar="$here/veil-cli/target/veil.jar"
log "compile the floor (bench/MapFloor.java, without invokedynamic string concatenation)"
mkdir -p "$work/floor"
javac -XDstringConcat=inline -d "$work/floor" bench/MapFloor.java
jar cf "$work/floor.jar" -C "$work/floor" .
floor_options="$(map_jvm_options)"

log "start veil serve (default 1,048,576 buckets, embedded store in $work) on CPU(s) ${server_cpus:-any}"
start_serve "$jar" "$work" "$server_cpus"
create_api_key "$work/data/admin.key" "$grpc_port" MAPPER
key="$api_key"

log "$n emails, and the same in bodies of 5,000"
write_emails "$n" "$work/emails.txt"
awk 'NR % 5000 == 1 { if (NR > 1) print "]}"; printf "{\"email\":[\"%s\"", $0; next } { printf ",\"%s\"", $0 }
  END { print "]}" }' "$work/emails.txt" >"$work/bodies.txt"


# Requests in flight: as many as veil map keeps (MapRun.REQUESTS_IN_FLIGHT).
connections=4

# wrk over $connections connections for $1 seconds; prints "<ids/s> <server CPU s per million ids>".
server_alone() {
  local before out rps
  before="$(cpu_ticks "$server_pid")"
  out="$(VEIL_PATH=/v1/identity/map VEIL_BODIES_FILE="$work/bodies.txt" \
    pinned "$client_cpus" wrk -t1 -c"$connections" -d"${1}s" --timeout 10s -s bench/wrk/post-bodies.lua "$url")"
  grep -q "Non-2xx" <<<"$out" && { echo "$out" >&2; die "wrk got error answers"; }
  rps="$(awk '/^Requests\/sec/ { print $2 }' <<<"$out")"
  awk -v r="$rps" -v c="$(cpu_seconds_since "$server_pid" "$before")" -v s="$1" \
    'BEGIN { printf "%.0f %.2f\n", r * 5000, c * 1e6 / (r * 5000 * s) }'
}

# The JDK HttpClient client; prints "<ids/s>".
jdk_client() {
  pinned "$client_cpus" java bench/MapLoad.java "$url" "$key" "$work/emails.txt" "$connections" | sed 's/.*ids_per_s=\([0-9]*\).*/\1/'
}

# timed_map NAME IN OUT LOG COMMAND...: runs a client that maps the file IN to the CSV OUT (a
# header, then a row per line) on the client's CPUs under GNU time, its output in LOG; checks the
# rows and prints "<ids/s> <wall s> <client CPU s> <peak RSS MB> <server CPU s>".
timed_map() {
  local name="$1" in="$2" out="$3" output="$4" before start end server_cpu rows lines wall user sys rss
  shift 4
  before="$(cpu_ticks "$server_pid")"
  start="$(date +%s.%N)"
  pinned "$client_cpus" /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$@" >"$output" 2>&1 \
    || { cat "$output" >&2; die "$name failed"; }
  end="$(date +%s.%N)"
  server_cpu="$(cpu_seconds_since "$server_pid" "$before")"
  rows="$(($(wc -l <"$out") - 1))"
  lines="$(wc -l <"$in")"
  [ "$rows" -eq "$lines" ] || { cat "$output" >&2; die "$name: expected $lines rows, got $rows"; }
  read -r wall user sys rss <"$work/time.txt"
  awk -v n="$lines" -v s="$start" -v e="$end" -v w="$wall" -v u="$user" -v y="$sys" -v r="$rss" -v c="$server_cpu" \
    'BEGIN { printf "%.0f %.2f %.2f %.0f %s\n", n / (e - s), w, u + y, r / 1024, c }'
}

# veil map of the file $1 from scratch (no output or state file); prints as timed_map.
veil_map() {
  rm -f "$work/mapped.csv" "$work/mapped.csv.veil-cache" "$work/mapped.csv.veil-state" "$work/mapped.csv.tmp" "$work/mapped.csv.rejected.csv" "$work/mapped.csv.rejected.csv.tmp"
  VEIL_API_KEY="$key" timed_map "veil map" "$1" "$work/mapped.csv" "$work/map.log" \
    ./veil map --in "$1" --out "$work/mapped.csv" --url "$url" --progress lines
}

# The floor on the file $1; prints as timed_map. $2, if not empty, replaces the use of the floor's
# class-data archive (to write it); $3 = cache runs the floor with a cache, resume the floor with
# checkpointed output.
floor() {
  local cds="${2:--XX:SharedArchiveFile=$work/floor.jsa}" mode="${3:-}"
  rm -f "$work/floor.csv" "$work/floor.csv.floor-cache" "$work/floor.csv.floor-resume"
  # shellcheck disable=SC2086 # the options (and the mode, when empty) are lists, split on purpose
  timed_map "the floor${mode:+ ($mode)}" "$1" "$work/floor.csv" "$work/floor.log" \
    java "$cds" -Xlog:cds=off,cds+dynamic=off $floor_options -cp "$work/floor.jar" MapFloor "$url" "$key" "$1" \
    "$work/floor.csv" $mode
}

log "warm-up: wrk 3 s (JIT, salts computed on first use); veil map and the floor of 20,000 emails (class-data archives)"
server_alone 3 >/dev/null
head -n 20000 "$work/emails.txt" >"$work/warm-up.txt"
veil_map "$work/warm-up.txt" >/dev/null
veil_map "$work/warm-up.txt" >/dev/null
floor "$work/warm-up.txt" "-XX:ArchiveClassesAtExit=$work/floor.jsa" cache >/dev/null
floor "$work/warm-up.txt" >/dev/null
floor "$work/warm-up.txt" "" cache >/dev/null
floor "$work/warm-up.txt" "" resume >/dev/null

load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
: >"$work/rounds.txt"
for round in $(seq 1 "$rounds"); do
  if [ -n "$server_cpus" ]; then
    # Even rounds swap the two CPUs: on a shared virtual machine one core can run slower than the
    # other for minutes, which would otherwise weigh on the server or on the clients only.
    if [ $((round % 2)) = 0 ]; then server_cpus=1 client_cpus=0; else server_cpus=0 client_cpus=1; fi
    taskset -a -cp "$server_cpus" "$server_pid" >/dev/null
  fi
  speed="$(for cpu in 0 1; do pinned "$([ -n "$server_cpus" ] && echo $cpu)" java bench/CpuSpeed.java; done | paste -sd/)"
  log "round $round of $rounds (load average $(cut -d' ' -f1-3 /proc/loadavg)); server on CPU ${server_cpus:-any};" \
    "speed of CPU 0/1: $speed ns/byte"
  # Each measurement writes its line to a file (not through $(...), whose subshell a failing
  # measurement's die would only leave): a client that fails stops the benchmark.
  server_alone "$half" >"$work/m.txt"
  read -r before before_cpu <"$work/m.txt"
  log "  server alone (wrk, $connections connections, before): $before ids/s, server CPU $before_cpu us/id"
  jdk="$(jdk_client)"
  log "  JDK HttpClient client, $connections connections: $jdk ids/s"
  if [ $((round % 2)) = 1 ]; then
    veil_map "$work/emails.txt" >"$work/m-veil.txt"
    floor "$work/emails.txt" >"$work/m-floor.txt"
    floor "$work/emails.txt" "" cache >"$work/m-cache.txt"
    floor "$work/emails.txt" "" resume >"$work/m-resume.txt"
  else
    floor "$work/emails.txt" "" resume >"$work/m-resume.txt"
    floor "$work/emails.txt" "" cache >"$work/m-cache.txt"
    floor "$work/emails.txt" >"$work/m-floor.txt"
    veil_map "$work/emails.txt" >"$work/m-veil.txt"
  fi
  read -r rate wall cpu rss map_server_cpu <"$work/m-veil.txt"
  read -r f_rate f_wall f_cpu f_rss f_server_cpu <"$work/m-floor.txt"
  read -r c_rate c_wall c_cpu c_rss c_server_cpu <"$work/m-cache.txt"
  read -r r_rate r_wall r_cpu r_rss r_server_cpu <"$work/m-resume.txt"
  log "  veil map: $rate ids/s, wall ${wall} s, client CPU ${cpu} s, peak RSS ${rss} MB, server CPU ${map_server_cpu} s"
  sed 's/^/      /' "$work/map.log" | grep -v "mapping .*left" >&2 || true
  log "  the floor: $f_rate ids/s, wall ${f_wall} s, client CPU ${f_cpu} s, peak RSS ${f_rss} MB, server CPU ${f_server_cpu} s"
  log "  the floor with a cache: $c_rate ids/s, wall ${c_wall} s, client CPU ${c_cpu} s, peak RSS ${c_rss} MB, server CPU ${c_server_cpu} s"
  log "  the floor with checkpointed output: $r_rate ids/s, wall ${r_wall} s, client CPU ${r_cpu} s, peak RSS ${r_rss} MB, server CPU ${r_server_cpu} s"
  server_alone "$half" >"$work/m.txt"
  read -r after after_cpu <"$work/m.txt"
  own="$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.0f", (a + b) / 2 }')"
  own_cpu="$(awk -v a="$before_cpu" -v b="$after_cpu" 'BEGIN { printf "%.2f", (a + b) / 2 }')"
  log "  server alone (wrk, after): $after ids/s; the round's reference: $own ids/s (veil map $(awk -v r="$rate" -v o="$own" 'BEGIN { printf "%.0f", 100 * r / o }') %, the floor $(awk -v r="$f_rate" -v o="$own" 'BEGIN { printf "%.0f", 100 * r / o }') %, with a cache $(awk -v r="$c_rate" -v o="$own" 'BEGIN { printf "%.0f", 100 * r / o }') %, with checkpointed output $(awk -v r="$r_rate" -v o="$own" 'BEGIN { printf "%.0f", 100 * r / o }') %)"
  echo "$own $jdk $rate $wall $cpu $rss $map_server_cpu $own_cpu ${server_cpus:-any} $speed $before $after $f_rate $f_wall $f_cpu $f_rss $f_server_cpu $c_rate $c_wall $c_cpu $c_rss $c_server_cpu $r_rate $r_wall $r_cpu $r_rss $r_server_cpu" >>"$work/rounds.txt"
done

col() { awk -v c="$1" '{ print $c }' "$work/rounds.txt" | median; }
ratio() { awk -v a="$1" -v b="$2" '{ print 100 * $a / $b }' "$work/rounds.txt" | median; }
unserved() { awk -v w="$1" -v c="$2" '{ print $w - $c }' "$work/rounds.txt" | median; }
per_id() { awk -v s="$1" -v n="$n" 'BEGIN { printf "%.2f", s * 1e6 / n }'; }
echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "java: $(java -version 2>&1 | head -1); veil map JVM options: ${VEIL_JAVA_OPTS-launcher default}; server on CPU(s) ${server_cpus:-any}, clients on CPU(s) ${client_cpus:-any}"
echo "rounds: $rounds, $n emails; per round: server alone (wrk, ${half} s), JDK HttpClient client, veil map, the floor, the floor with a cache and the floor with checkpointed output (odd rounds in this order, even rounds reversed), server alone (wrk, ${half} s)"
echo "median server alone (wrk, $connections connections, mean of before and after): $(col 1) ids/s (server CPU $(col 8) us/id)"
echo "median JDK HttpClient client ($connections connections):  $(col 2) ids/s"
echo "median veil map end to end:                     $(col 3) ids/s, wall $(col 4) s, client CPU $(col 5) s ($(per_id "$(col 5)") us/id), server CPU $(per_id "$(col 7)") us/id, peak RSS $(col 6) MB"
echo "median the floor (bench/MapFloor.java):          $(col 13) ids/s, wall $(col 14) s, client CPU $(col 15) s, peak RSS $(col 16) MB"
echo "median the floor with a cache:                  $(col 18) ids/s, wall $(col 19) s, client CPU $(col 20) s, peak RSS $(col 21) MB"
echo "median the floor with checkpointed output:      $(col 23) ids/s, wall $(col 24) s, client CPU $(col 25) s, peak RSS $(col 26) MB"
echo "median time the server did not work (wall minus its CPU during the run): veil map $(unserved 4 7) s, the floor $(unserved 14 17) s, with a cache $(unserved 19 22) s, with checkpointed output $(unserved 24 27) s"
echo "median ratio of veil map to the server alone:   $(printf '%.0f' "$(ratio 3 1)") %  (target: 80 %)"
echo "median ratio of the floor to the server alone:  $(printf '%.0f' "$(ratio 13 1)") %  (the best a Java 17 client reaches here)"
echo "median ratio of the floor with a cache:         $(printf '%.0f' "$(ratio 18 1)") %  (the best a client with a crash-safe cache reaches here)"
echo "median ratio of the floor with checkpointed output: $(printf '%.0f' "$(ratio 23 1)") %  (the best a client that resumes from its output reaches here)"
echo "median ratio of veil map to the floor:          $(printf '%.0f' "$(ratio 3 13)") %"
echo "median ratio of veil map to the floor with a cache: $(printf '%.0f' "$(ratio 3 18)") %"
echo "median ratio of veil map to the JDK client:     $(printf '%.0f' "$(ratio 3 2)") %"
echo "rounds (server alone ids/s, JDK client ids/s, veil map ids/s, wall s, client CPU s, RSS MB, server CPU s during veil map, server CPU us/id alone, server's CPU, speed of CPU 0/1 in ns/byte, wrk before, wrk after; the floor's ids/s, wall s, client CPU s, RSS MB, server CPU s during it; the same for the floor with a cache, then for the floor with checkpointed output):"
sed 's/^/  /' "$work/rounds.txt"

#!/usr/bin/env bash
# Several nodes on one PostgreSQL: generate and map throughput served by
# 1, 2 and 3 `veil serve` nodes on this machine, and how long an opt-out written on one node takes
# to reach the others. Rewrites the bench/multinode.sh block of docs/benchmarks.md.
#
#   bench/multinode.sh [--no-build]
#   bench/multinode.sh --report RESULTS   # only rewrite the docs block from a saved results.properties
#
# What it does (about 6 minutes after the build; loopback only):
#   1. creates a fresh database on the local PostgreSQL (dropped again on exit);
#   2. starts node 1 and creates an API key (GENERATOR, MAPPER, OPTOUT) through its admin API;
#   3. round 1, N = 1, 2, 3: starts one more node each time (all on that database), warms the new
#      node alone, then runs one wrk whose threads are spread evenly over the N nodes
#      (bench/wrk/multi-node.lua), warm-up then a measured run, for GET generate, GET map and
#      POST map of 1,000 emails; records requests/s, the requests each node got, the servers'
#      CPU time per request (/proc) and the database's transactions meanwhile (pg_stat_database);
#   4. with 3 nodes: opt-out propagation (bench/OptOutPropagation.java posts opt-outs on node 1
#      and polls map on nodes 2 and 3 until they answer optout), heap and resident memory;
#   5. round 2, N = 3, 2, 1: the same runs, stopping one node (SIGTERM) each time; every figure
#      is kept from the round with the higher requests/s (the other round is shown beside it),
#      since other work on the machine only ever takes throughput away;
#   6. rewrites the docs block.
#
# The servers share the same cores whatever N is (default: all on core 0, wrk on core 1), so the
# total should stay about flat: the point is that a node adds no work per request.
#
# Environment (all optional):
#   VEIL_BENCH_SERVER_CPUS   cores for every server     (default 0, or none on 1 core; "" = none)
#   VEIL_BENCH_LOAD_CPUS     cores for wrk               (default 1, or none on 1 core; "" = none)
#   VEIL_BENCH_PORT          first of 6 free loopback ports (default 18490)
#   VEIL_BENCH_SECONDS       measured wrk run            (default 10)
#   VEIL_BENCH_WARMUP        wrk warm-up before each run (default 5)
#   VEIL_BENCH_THREADS       wrk threads, a multiple of 1, 2 and 3 (default 6)
#   VEIL_BENCH_CONNECTIONS   wrk connections in total    (default 60)
#   VEIL_BENCH_PROP_COUNT    identities for the propagation run (default 50)
#   VEIL_BENCH_JAVA_OPTS     JVM options of the servers  (default none, like bench/run.sh)
#   PGHOST PGPORT PGUSER     the PostgreSQL server       (default 127.0.0.1, 5432, postgres; trust or ~/.pgpass)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# shellcheck source=bench/lib.sh
. bench/lib.sh
choose_cpus
base_port="${VEIL_BENCH_PORT:-18490}"
seconds="${VEIL_BENCH_SECONDS:-10}"
warmup="${VEIL_BENCH_WARMUP:-5}"
threads="${VEIL_BENCH_THREADS:-6}"
connections="${VEIL_BENCH_CONNECTIONS:-60}"
prop_count="${VEIL_BENCH_PROP_COUNT:-50}"
java_opts="${VEIL_BENCH_JAVA_OPTS:-}"
export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
max_nodes=3
buckets=1048576
jar="veil-cli/target/veil.jar"
doc="docs/benchmarks.md"
begin_marker="<!-- BEGIN bench/multinode.sh results: generated, edits here are overwritten -->"
end_marker="<!-- END bench/multinode.sh results -->"

work="$(mktemp -d /tmp/veil-multinode.XXXXXX)"
results="$work/results.properties"
database="veil_bench_$(date +%Y%m%d%H%M%S)_$$"
database_created=""
node_pids=()

log_tag=multinode
get() { awk -F= -v k="$1" '$1 == k { sub(/^[^=]*=/, ""); v = $0 } END { print v }' "$results"; }
cleanup() {
  local pid
  for pid in "${node_pids[@]}"; do
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${node_pids[@]}"; do
    [ -n "$pid" ] || continue
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [ -n "$database_created" ]; then
    dropdb --if-exists "$database" 2>/dev/null || dropdb --if-exists --force "$database" 2>/dev/null \
      || log "could not drop database $database; drop it by hand"
  fi
  # The data directories and node 1's banner hold the admin key; the logs (stderr) are kept.
  rm -rf "$work"/node[0-9] "$work"/node[0-9].out
}
trap cleanup EXIT
trap 'exit 130' INT TERM

http_port() { echo $((base_port + 2 * ($1 - 1))); }
grpc_port() { echo $((base_port + 2 * ($1 - 1) + 1)); }
# Context switches of all threads of a process, voluntary plus involuntary.
ctx_switches() {
  cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print n + 0 }'
}
# Committed + rolled back transactions of the bench database so far (the statistics lag by up to a second).
db_xacts() {
  psql -d "$database" -Atqc "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"
}

check_tools() {
  require_tools java jcmd curl taskset awk psql createdb dropdb
  pg_isready -q 2>/dev/null || die "PostgreSQL is not reachable at $PGHOST:$PGPORT (see DEVELOPERS.md to start it)"
  [ $((threads % 6)) = 0 ] || log "warning: VEIL_BENCH_THREADS=$threads is not a multiple of 6: nodes get unequal shares"
  local i
  for i in $(seq "$max_nodes"); do
    for p in "$(http_port "$i")" "$(grpc_port "$i")"; do
      ! listening "$p" || die "port $p is in use; set VEIL_BENCH_PORT"
    done
  done
}

record_machine() {
  record_machine_common
  put machine.postgres "$(psql -d postgres -Atqc 'SHOW server_version' 2>/dev/null || echo unknown)"
}

# start_node I: starts node I on the bench database and waits for /ops/readyz = 200.
start_node() {
  local i="$1" port t0 code pid
  port="$(http_port "$i")"
  log "starting node $i (HTTP $port, gRPC $(grpc_port "$i"), pinned to core(s): ${server_cpus:-none})"
  t0=$(date +%s%N)
  # shellcheck disable=SC2086  # java_opts is a list of options
  if [ -n "$server_cpus" ]; then
    taskset -c "$server_cpus" java $java_opts -jar "$jar" serve --db "postgresql://$PGUSER@$PGHOST:$PGPORT/$database" \
      --port "$port" --grpc-port "$(grpc_port "$i")" --console-port 0 --data-dir "$work/node$i" --set "salt.buckets=$buckets" \
      >"$work/node$i.out" 2>"$work/node$i.log" &
  else
    java $java_opts -jar "$jar" serve --db "postgresql://$PGUSER@$PGHOST:$PGPORT/$database" \
      --port "$port" --grpc-port "$(grpc_port "$i")" --console-port 0 --data-dir "$work/node$i" --set "salt.buckets=$buckets" \
      >"$work/node$i.out" 2>"$work/node$i.log" &
  fi
  pid=$!
  node_pids+=("$pid")
  while :; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$port/ops/readyz" || true)
    [ "$code" = 200 ] && break
    kill -0 "$pid" 2>/dev/null || { tail -n 30 "$work/node$i.log" >&2; die "node $i exited"; }
    (( ($(date +%s%N) - t0) / 1000000000 < 120 )) || die "node $i not ready after 120 s"
    sleep 0.05
  done
  put "node.$i.ready_ms" "$(( ($(date +%s%N) - t0) / 1000000 ))"
}

node_list() {
  local n="$1" i list=""
  for i in $(seq "$n"); do list="${list:+$list,}127.0.0.1:$(http_port "$i")"; done
  echo "$list"
}

# measure ROUND N NAME: a warm-up and a measured wrk run spread over nodes 1..N; records
# r.ROUND.N.NAME.* (see pick_best).
measure() {
  local round="$1" n="$2" name="$3" warm="$warmup" out="$work/wrk-$1-$2-$3.txt" nodes i before_cpu=() after \
    xacts_before xacts_after t0 t1 cpu=0 before_ctx=() ctx=0
  nodes="$(node_list "$n")"
  export VEIL_NODES="$nodes"
  log "round $round, N=$n $name: ${warm} s warm-up + ${seconds} s, wrk -t$threads -c$connections over $nodes"
  pinned "$load_cpus" wrk -t"$threads" -c"$connections" -d"${warm}s" --timeout 10s -s bench/wrk/multi-node.lua \
    "http://127.0.0.1:$(http_port 1)" >/dev/null
  xacts_before="$(db_xacts)"
  for i in $(seq "$n"); do
    before_cpu[$i]="$(cpu_ticks "${node_pids[$((i - 1))]}")"
    before_ctx[$i]="$(ctx_switches "${node_pids[$((i - 1))]}")"
  done
  t0=$(date +%s%N)
  pinned "$load_cpus" wrk -t"$threads" -c"$connections" -d"${seconds}s" --timeout 10s --latency \
    -s bench/wrk/multi-node.lua "http://127.0.0.1:$(http_port 1)" >"$out"
  t1=$(date +%s%N)
  for i in $(seq "$n"); do
    after="$(cpu_ticks "${node_pids[$((i - 1))]}")"
    cpu=$((cpu + after - before_cpu[i]))
    after="$(ctx_switches "${node_pids[$((i - 1))]}")"
    ctx=$((ctx + after - before_ctx[i]))
  done
  sleep 1.1 # PostgreSQL publishes the counters of its sessions at most once a second
  xacts_after="$(db_xacts)"
  local prefix="r.$round.$n.$name" rps requests
  rps="$(awk '/^Requests\/sec:/ {print $2}' "$out")"
  requests="$(awk '$2 == "requests" && $3 == "in" {print $1}' "$out")"
  put "$prefix.rps" "$rps"
  put "$prefix.requests" "$requests"
  put "$prefix.p50_ms" "$(to_ms "$(awk '$1 == "50%" {print $2}' "$out")" 2)"
  put "$prefix.p99_ms" "$(to_ms "$(awk '$1 == "99%" {print $2}' "$out")" 2)"
  put "$prefix.errors" "$(awk '/Non-2xx or 3xx responses:/ {n += $NF}
      /Socket errors:/ {gsub(/,/, ""); n += $4 + $6 + $8 + $10} END {print n + 0}' "$out")"
  put "$prefix.per_node" "$(awk '$1 == "node" && $4 == "requests" {printf "%s%s", (s++ ? " / " : ""), $5}' "$out")"
  put "$prefix.cpu_us_per_request" "$(awk -v c="$cpu" -v t="$(getconf CLK_TCK)" -v r="$requests" \
    'BEGIN { printf "%.1f", c / t * 1e6 / r }')"
  put "$prefix.ctx_per_1000" "$(awk -v c="$ctx" -v r="$requests" 'BEGIN { printf "%.0f", c * 1000 / r }')"
  put "$prefix.cpu_cores" "$(awk -v c="$cpu" -v t="$(getconf CLK_TCK)" -v w="$((t1 - t0))" \
    'BEGIN { printf "%.2f", c / t / (w / 1e9) }')"
  put "$prefix.db_xacts_per_s" "$(awk -v a="$xacts_after" -v b="$xacts_before" -v w="$((t1 - t0))" \
    'BEGIN { printf "%.1f", (a - b) / ((w / 1e9) + 1.1) }')"
  grep -E 'Requests/sec|Non-2xx|Socket errors|^node ' "$out" | sed "s/^/    /" >&2 || true
}

email_batch() {
  awk -v n="$1" 'BEGIN { printf "{\"email\":["; for (i = 0; i < n; i++) printf "%s\"user%d@example.com\"", (i ? "," : ""), i; printf "]}" }'
}

# stop_node I: SIGTERM, then wait for the process to end.
stop_node() {
  local i="$1" pid="${node_pids[$(($1 - 1))]}"
  log "stopping node $i"
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  node_pids[$((i - 1))]=""
}

# warm_node I: load on node I alone (each endpoint for the warm-up time), so a node that just
# joined does not enter the measurement with a cold JIT.
warm_node() {
  local i="$1" port
  port="$(http_port "$i")"
  log "warming node $i alone: 3 x ${warmup} s"
  export VEIL_NODES="127.0.0.1:$port"
  VEIL_PATH_PREFIX="/v1/token/generate?email=" pinned "$load_cpus" wrk -t"$threads" -c"$connections" \
    -d"${warmup}s" --timeout 10s -s bench/wrk/multi-node.lua "http://127.0.0.1:$port" >/dev/null
  VEIL_PATH_PREFIX="/v1/identity/map?email=" pinned "$load_cpus" wrk -t"$threads" -c"$connections" \
    -d"${warmup}s" --timeout 10s -s bench/wrk/multi-node.lua "http://127.0.0.1:$port" >/dev/null
  VEIL_PATH="/v1/identity/map" VEIL_BODY_FILE="$work/batch-1000.json" pinned "$load_cpus" wrk -t"$threads" \
    -c"$connections" -d"${warmup}s" --timeout 10s -s bench/wrk/multi-node.lua "http://127.0.0.1:$port" >/dev/null
}

# measure_round ROUND N: the three endpoints over nodes 1..N.
measure_round() {
  unset VEIL_BODY_FILE VEIL_PATH
  VEIL_PATH_PREFIX="/v1/token/generate?email=" measure "$1" "$2" generate
  VEIL_PATH_PREFIX="/v1/identity/map?email=" measure "$1" "$2" map_get
  unset VEIL_PATH_PREFIX
  VEIL_PATH="/v1/identity/map" VEIL_BODY_FILE="$work/batch-1000.json" measure "$1" "$2" map_post_1000
  unset VEIL_PATH VEIL_BODY_FILE
}

# pick_best: for each N and endpoint, copies wrk's figures from the round with the higher
# requests/s, and the CPU time per request (with its context switches) from the round with the
# lower CPU time per request, to mn.N.NAME.*; both rounds' values go to mn.N.NAME.rounds and
# mn.N.NAME.cpu_rounds. Other work on the machine only ever lowers throughput and adds CPU time
# (shared caches, the other hardware thread of the core), so each best is the least disturbed.
pick_best() {
  local n name best cheapest key
  for n in $(seq "$max_nodes"); do
    for name in generate map_get map_post_1000; do
      best=1 cheapest=1
      if awk -v a="$(get "r.2.$n.$name.rps")" -v b="$(get "r.1.$n.$name.rps")" 'BEGIN { exit !(a > b) }'; then
        best=2
      fi
      if awk -v a="$(get "r.2.$n.$name.cpu_us_per_request")" -v b="$(get "r.1.$n.$name.cpu_us_per_request")" \
          'BEGIN { exit !(a < b) }'; then
        cheapest=2
      fi
      for key in rps requests p50_ms p99_ms errors per_node cpu_cores db_xacts_per_s; do
        put "mn.$n.$name.$key" "$(get "r.$best.$n.$name.$key")"
      done
      for key in cpu_us_per_request ctx_per_1000; do
        put "mn.$n.$name.$key" "$(get "r.$cheapest.$n.$name.$key")"
      done
      put "mn.$n.$name.rounds" "$(fmt_int "$(get "r.1.$n.$name.rps")") / $(fmt_int "$(get "r.2.$n.$name.rps")")"
      put "mn.$n.$name.cpu_rounds" "$(get "r.1.$n.$name.cpu_us_per_request") / $(get "r.2.$n.$name.cpu_us_per_request")"
    done
  done
}

measure_propagation() {
  local urls=() i
  for i in $(seq "$max_nodes"); do urls+=("http://127.0.0.1:$(http_port "$i")"); done
  log "opt-out propagation: $prop_count identities, opt-out on node 1, map polled every 5 ms on nodes 2..$max_nodes"
  pinned "$load_cpus" java bench/OptOutPropagation.java "$api_key" "$prop_count" 10000 5 "${urls[@]}" \
    | grep '^prop\.' | tee -a "$results" >&2
}

measure_memory() {
  local i pid heap rss
  for i in $(seq "$max_nodes"); do
    pid="${node_pids[$((i - 1))]}"
    jcmd "$pid" GC.run >/dev/null 2>&1 || true
    # Sum "used NK" over the heap's generations (one line with G1, two with Serial or Parallel).
    heap="$(jcmd "$pid" GC.heap_info 2>/dev/null | awk '/used [0-9]+K/ && !/Metaspace|class space/ {
        for (j = 1; j <= NF; j++) if ($j == "used") { v = $(j + 1); sub(/K.*/, "", v); kb += v }
      } END { if (kb != "") printf "%.0f", kb / 1024 }')"
    rss="$(awk '/^VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status")"
    put "node.$i.heap_mb" "${heap:-?}"
    put "node.$i.rss_mb" "$rss"
  done
}

fmt_int() { awk -v v="$1" 'BEGIN { s = sprintf("%.0f", v); r = ""; while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) } print s r }'; }
# Identifiers served per second of the servers' CPU time (1e6 / CPU µs per request, x 1,000 for batches).
per_cpu_second() {
  awk -v us="$(get "mn.$1.$2.cpu_us_per_request")" -v b="$([ "$2" = map_post_1000 ] && echo 1000 || echo 1)" \
    'BEGIN { if (us > 0) printf "%.0f", 1e6 / us * b; else print 0 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }'; }

render() {
  local n name label rps ids one pinning
  if [ -n "$server_cpus" ]; then
    pinning="every server on core(s) $server_cpus, wrk and the propagation client on core(s) ${load_cpus:-any} (taskset); PostgreSQL unpinned"
  else
    pinning="none"
  fi
  echo "$begin_marker"
  echo "### Latest run"
  echo
  echo "- Date: $(get run.date); commit \`$(get run.commit)\`"
  echo "- Machine: $(get machine.nproc) cores (\`nproc\`), $(get machine.cpu | awk '{print $1, $2}'); $(get machine.memory); PostgreSQL $(get machine.postgres) on the same machine"
  echo "- Java: $(get machine.java); wrk: $(get machine.wrk); server JVM options: ${java_opts:-none (defaults)}"
  echo "- Load average before / after the run: $(get machine.load_before) / $(get machine.load_after) (other work on the machine makes every figure noisier)"
  echo "- Command: \`bench/multinode.sh\`"
  echo "- Pinning: $pinning"
  echo "- wrk: one process, $threads threads spread evenly over the nodes (\`bench/wrk/multi-node.lua\`), $connections connections in total, ${warmup} s warm-up then ${seconds} s measured per row; two rounds (N = 1, 2, 3 adding a node each time, then 3, 2, 1 stopping one): wrk's figures from the round with the higher requests/s, CPU time per request from the round with the lower one; $buckets salt buckets"
  echo
  echo "| Endpoint | 1 node | 2 nodes | 3 nodes | 3 nodes / 1 node |"
  echo "|---|---|---|---|---|"
  for name in generate map_get map_post_1000; do
    case "$name" in
      generate) label="\`GET /v1/token/generate\`, requests/s" ;;
      map_get) label="\`GET /v1/identity/map\`, requests/s" ;;
      map_post_1000) label="\`POST /v1/identity/map\`, 1,000 emails, identifiers/s" ;;
    esac
    printf '| %s |' "$label"
    for n in 1 2 3; do
      rps="$(get "mn.$n.$name.rps")"
      ids="$rps"
      [ "$name" = map_post_1000 ] && ids="$(awk -v r="$rps" 'BEGIN { print r * 1000 }')"
      printf ' %s |' "$(fmt_int "$ids")"
    done
    printf ' %s |\n' "$(ratio "$(get "mn.3.$name.rps")" "$(get "mn.1.$name.rps")")"
  done
  for name in generate map_get map_post_1000; do
    case "$name" in
      generate) label="generate, requests per second of server CPU" ;;
      map_get) label="map GET, requests per second of server CPU" ;;
      map_post_1000) label="map POST 1,000, identifiers per second of server CPU" ;;
    esac
    printf '| %s |' "$label"
    for n in 1 2 3; do
      printf ' %s |' "$(fmt_int "$(per_cpu_second "$n" "$name")")"
    done
    printf ' %s |\n' "$(ratio "$(per_cpu_second 3 "$name")" "$(per_cpu_second 1 "$name")")"
  done
  echo
  echo "| Nodes | Endpoint | Requests/s | Rounds 1 / 2, requests/s | Requests per node | p50 | p99 | Errors | Server CPU per request (rounds 1 / 2, µs) | Context switches per 1,000 requests | Server cores busy | DB transactions/s |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  for n in 1 2 3; do
    for name in generate map_get map_post_1000; do
      local p="mn.$n.$name"
      echo "| $n | $name | $(fmt_int "$(get "$p.rps")") | $(get "$p.rounds") | $(get "$p.per_node") | $(get "$p.p50_ms") ms | $(get "$p.p99_ms") ms | $(get "$p.errors") | $(get "$p.cpu_us_per_request") µs ($(get "$p.cpu_rounds")) | $(fmt_int "$(get "$p.ctx_per_1000")") | $(get "$p.cpu_cores") | $(get "$p.db_xacts_per_s") |"
    done
  done
  echo
  if [ -n "$(get prop.p50_ms)" ]; then
    echo "Opt-out propagation ($max_nodes nodes, \`sync.interval\` 1 s, no other load): $(get prop.count) opt-outs posted to node 1 at random moments; from each answer, \`GET /v1/identity/map\` polled every 5 ms on the other $(get prop.readers) nodes until both answered \`optout\`: **p50 $(get prop.p50_ms) ms, p90 $(get prop.p90_ms) ms, max $(get prop.max_ms) ms** (min $(get prop.min_ms) ms); not seen everywhere within 10 s: $(get prop.unseen). The opt-out request itself (durable write, then the answer): p50 $(get prop.ack_p50_ms) ms, max $(get prop.ack_max_ms) ms."
  else
    echo "Opt-out propagation ($max_nodes nodes): **no opt-out reached every node within 10 s** ($(get prop.unseen) of $(get prop.count) tried; the run stops after 3). The opt-out request itself: p50 $(get prop.ack_p50_ms) ms, max $(get prop.ack_max_ms) ms."
  fi
  echo
  printf 'Per node after the run (full GC first):'
  for n in 1 2 3; do
    printf ' node %s ready %s ms after its start, heap used %s MiB, resident %s MiB;' "$n" \
      "$(fmt_int "$(get "node.$n.ready_ms")")" "$(get "node.$n.heap_mb")" "$(get "node.$n.rss_mb")"
  done
  echo ' (default heap limit: a quarter of RAM, so resident memory is mostly garbage the collector had no reason to return).'
  echo
  printf 'Database after the run: %s MiB (%s salt buckets, keys, 1 client, %s opt-outs)' "$(get db.size_mb)" "$buckets" "$(get prop.count)"
  if [ -n "$(get db.connections_all_nodes)" ]; then
    printf '; with all %s nodes up, %s connections were open to it' "$max_nodes" "$(get db.connections_all_nodes)"
  fi
  echo .
  echo "$end_marker"
}

write_doc() {
  local block="$work/block.md"
  render >"$block"
  if grep -qF "$begin_marker" "$doc" && grep -qF "$end_marker" "$doc"; then
    awk -v b="$begin_marker" -v e="$end_marker" -v f="$block" '
      $0 == b { while ((getline line < f) > 0) print line; skipping = 1; next }
      $0 == e { skipping = 0; next }
      !skipping { print }' "$doc" >"$work/doc.md"
  else
    { cat "$doc"; echo; cat "$block"; } >"$work/doc.md"
  fi
  cp "$work/doc.md" "$doc"
  log "rewrote the bench/multinode.sh block of $doc"
}

main() {
  if [ "${1:-}" = "--report" ]; then
    # Re-renders the docs block from the results of an earlier run (its results.properties).
    cp "${2:?usage: bench/multinode.sh --report RESULTS_FILE}" "$results"
    pick_best
    write_doc
    rm -rf "$work"
    return
  fi
  if [ "${1:-}" != "--no-build" ]; then
    log "building (./mvnw -q -DskipTests -pl veil-cli -am package)"
    ./mvnw -q -B -DskipTests -pl veil-cli -am package
  fi
  [ -f "$jar" ] || die "$jar is missing: run without --no-build"
  check_tools
  : >"$results"
  record_machine
  createdb "$database" || die "cannot create database $database"
  database_created=1
  log "database $database on $PGHOST:$PGPORT"
  start_node 1
  create_api_key "$work/node1/admin.key" "$(grpc_port 1)" GENERATOR,MAPPER,OPTOUT
  email_batch 1000 >"$work/batch-1000.json"
  local n
  for n in $(seq "$max_nodes"); do
    if [ "$n" -gt 1 ]; then start_node "$n"; fi
    warm_node "$n"
    measure_round 1 "$n"
  done
  measure_propagation
  measure_memory
  put db.connections_all_nodes "$(psql -d "$database" -Atqc \
    "SELECT count(*) - 1 FROM pg_stat_activity WHERE datname = current_database()")"
  for n in $(seq "$max_nodes" -1 1); do
    if [ "$n" -lt "$max_nodes" ]; then stop_node $((n + 1)); fi
    measure_round 2 "$n"
  done
  pick_best
  put db.size_mb "$(psql -d "$database" -Atqc "SELECT round(pg_database_size(current_database()) / 1048576.0)")"
  put machine.load_after "$(cut -d' ' -f1-3 /proc/loadavg)"
  write_doc
  cat "$results" >&2
}

main "$@"

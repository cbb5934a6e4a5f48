#!/usr/bin/env bash
# Veil's benchmark run (docs/spec.md 10): JMH for the per-request work, then an HTTP load run of a real
# `veil serve` on loopback with wrk, compared with limits measured in the same run. Prints a
# summary and rewrites the results block of docs/benchmarks.md. Takes about 8 minutes after the build.
#
#   bench/run.sh [--no-build]
#
# Environment (all optional):
#   VEIL_BENCH_SERVER_CPUS  cores for the server under load   (default 0, or none on 1 core; "" = none)
#   VEIL_BENCH_LOAD_CPUS    cores for wrk and the latency load (default 1, or none on 1 core; "" = none)
#   VEIL_BENCH_PORT         first of three free loopback ports  (default 18480)
#   VEIL_BENCH_SECONDS      length of each measured wrk run    (default 12)
#   VEIL_BENCH_WARMUP       wrk warm-up before each run        (default 5)
#   VEIL_BENCH_CONNECTIONS  wrk connections                    (default 64)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# shellcheck source=bench/lib.sh
. bench/lib.sh
choose_cpus
port="${VEIL_BENCH_PORT:-18480}"
grpc_port=$((port + 1))
ceiling_port=$((port + 2))
seconds="${VEIL_BENCH_SECONDS:-12}"
warmup="${VEIL_BENCH_WARMUP:-5}"
connections="${VEIL_BENCH_CONNECTIONS:-64}"
buckets=1048576
jmh_args=(-f 1 -wi 5 -i 5 -w 1 -r 1)

work="$(mktemp -d /tmp/veil-bench.XXXXXX)"
results="$work/results.properties"
started_pids=()

log_tag=bench

cleanup() {
  for pid in "${started_pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
}
trap cleanup EXIT

# Like pinned, in the background, with output to $2; sets bg_pid to the command's own pid (taskset
# execs the command, so the pid is the JVM's and signals reach it).
pinned_bg() {
  local cpus="$1" logfile="$2"
  shift 2
  if [ -n "$cpus" ]; then
    taskset -c "$cpus" "$@" >"$logfile" 2>&1 &
  else
    "$@" >"$logfile" 2>&1 &
  fi
  bg_pid=$!
  started_pids+=("$bg_pid")
}

core_count() {
  local cpus="$1" n=0 part
  [ -z "$cpus" ] && { nproc; return; }
  IFS=',' read -ra parts <<<"$cpus"
  for part in "${parts[@]}"; do
    if [[ "$part" == *-* ]]; then n=$((n + ${part#*-} - ${part%-*} + 1)); else n=$((n + 1)); fi
  done
  echo "$n"
}

check_tools() {
  require_tools java jcmd curl jq taskset awk
  for p in "$port" "$grpc_port" "$ceiling_port"; do
    ! listening "$p" || die "port $p is in use; set VEIL_BENCH_PORT"
  done
}

record_machine() {
  record_machine_common
  put run.command "bench/run.sh"
  if [ -n "$server_cpus" ]; then
    put run.pinning "server on core(s) $server_cpus, wrk and the latency load on core(s) ${load_cpus:-any} (taskset); JMH, start-up and memory unpinned"
  else
    put run.pinning "none"
  fi
  put run.server_cores "$(core_count "$server_cpus")"
  put run.wrk_settings "1 thread, $connections connections, ${warmup} s warm-up then ${seconds} s measured, --latency"
  put run.jmh_settings "${jmh_args[*]} (one fork, 5 × 1 s warm-up, 5 × 1 s measured)"
  put start.buckets "$buckets"
}

build() {
  log "building (./mvnw -q -DskipTests package)"
  ./mvnw -q -B -DskipTests package
}

bench_cp() {
  local jar
  jar="$(ls veil-bench/target/veil-bench-*.jar | grep -v -e sources -e javadoc | head -n 1)"
  echo "$jar:veil-bench/target/lib/*"
}

run_jmh() {
  log "JMH: ${jmh_args[*]} (about 2 minutes)"
  timeout 600 java -cp "$(bench_cp)" org.openjdk.jmh.Main "${jmh_args[@]}" -rf json -rff "$work/jmh.json" \
    'dev.veil.bench.(IdentityBenchmark|TokenCodecBenchmark|ServiceBenchmark|AesGcmKeySwitchBenchmark)' >"$work/jmh.log" 2>&1 \
    || { tail -n 30 "$work/jmh.log" >&2; die "JMH failed"; }
  grep -E '^(Benchmark|[A-Za-z]+Benchmark\.)' "$work/jmh.log" >&2 || true
}

run_optout_memory() {
  log "opt-out index: 10,000,000 random records"
  timeout 300 java -Xmx4g -cp "$(bench_cp)" dev.veil.bench.OptOutMemory 10000000 | grep '^optout\.' >>"$results"
}

# Starts `veil serve` on $1 (data dir), pinned to $2 (cores, may be empty); sets server_pid and
# server_ready_ms (process start to /ops/readyz = 200). Through the launcher, as users start it,
# so with the launcher's JVM options (garbage collector, class data sharing archive); the launcher
# execs the JVM, so the pid is the JVM's. VEIL_NO_BUILD: the jar was just built (or --no-build).
start_server() {
  local data="$1" cpus="$2" logfile="$work/serve-$(date +%s%N).log" t0 code
  t0=$(date +%s%N)
  pinned_bg "$cpus" "$logfile" env VEIL_NO_BUILD=1 ./veil serve --data-dir "$data" --port "$port" \
    --grpc-port "$grpc_port" --console-port 0 --set "salt.buckets=$buckets"
  server_pid=$bg_pid
  while :; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$port/ops/readyz" || true)
    [ "$code" = 200 ] && break
    kill -0 "$server_pid" 2>/dev/null || { tail -n 30 "$logfile" >&2; die "veil serve exited"; }
    (( ($(date +%s%N) - t0) / 1000000000 < 60 )) || die "veil serve not ready after 60 s"
    sleep 0.02
  done
  server_ready_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
}

stop_server() {
  kill -TERM "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  ! listening "$port" || die "port $port still accepts connections after the server stopped"
}

# Heap used by $1 after a full GC, in MiB.
heap_used_mb() {
  jcmd "$1" GC.run >/dev/null || return 0
  jcmd "$1" GC.heap_info | awk '/used [0-9]+K/ {
      for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); sub(/K.*/, "", v); printf "%.1f", v / 1024; exit }
    }'
}

measure_starts() {
  local data="$work/data"
  # The first start runs without a class data sharing archive (and writes one when it stops), as
  # the first `./veil serve` of a build does; the second start uses it.
  rm -f veil-cli/target/veil-serve-*.jsa veil-cli/target/veil-serve-*.jsa.*.dump
  log "start-up: first start on an empty data dir ($buckets buckets)"
  start_server "$data" ""
  put start.first_ms "$server_ready_ms"
  put heap.first_mb "$(heap_used_mb "$server_pid")"
  stop_server
  log "start-up: second start on the same data dir"
  start_server "$data" ""
  put start.second_ms "$server_ready_ms"
  put heap.second_mb "$(heap_used_mb "$server_pid")"
  stop_server
  log "starting the server for the load runs (pinned to core(s): ${server_cpus:-none})"
  start_server "$data" "$server_cpus"
}

# wrk_once LUA URL OUT [--warmup]: one wrk run of the load settings into OUT (a warm-up run first
# when asked); prints its requests/s.
wrk_once() {
  local lua="$1" url="$2" out="$3"
  if [ "${4:-}" = --warmup ]; then
    pinned "$load_cpus" wrk -t1 -c"$connections" -d"${warmup}s" --timeout 10s -s "$lua" "$url" >/dev/null
  fi
  pinned "$load_cpus" wrk -t1 -c"$connections" -d"${seconds}s" --timeout 10s --latency -s "$lua" "$url" >"$out"
  awk '/^Requests\/sec:/ {print $2}' "$out"
}

# record_wrk NAME OUT: records wrk.NAME.{rps,p50_ms,p99_ms,errors} from a wrk output file.
record_wrk() {
  local name="$1" out="$2"
  put "wrk.$name.rps" "$(awk '/^Requests\/sec:/ {print $2}' "$out")"
  put "wrk.$name.p50_ms" "$(to_ms "$(awk '$1 == "50%" {print $2}' "$out")")"
  put "wrk.$name.p99_ms" "$(to_ms "$(awk '$1 == "99%" {print $2}' "$out")")"
  put "wrk.$name.errors" "$(awk '/Non-2xx or 3xx responses:/ {n += $NF}
      /Socket errors:/ {gsub(/,/, ""); n += $4 + $6 + $8 + $10} END {print n + 0}' "$out")"
  grep -E 'Requests/sec|Non-2xx|Socket errors' "$out" | sed "s/^/    $name: /" >&2 || true
}

# run_wrk NAME LUA URL: warm-up, then the measured run, recorded.
run_wrk() {
  log "wrk $1: ${warmup} s warm-up + ${seconds} s"
  wrk_once "$2" "$3" "$work/wrk-$1.txt" --warmup >/dev/null
  record_wrk "$1" "$work/wrk-$1.txt"
}

# The ceiling and generate alternate for two rounds and each keeps its better round: other work on
# the machine comes and goes, and alternating exposes both sides of the ratio to the same minutes.
run_ceiling_and_generate() {
  local ceiling_url="$1" base="$2" name round rps best_file
  declare -A best=() rounds=()
  export VEIL_PATH_PREFIX="/v1/token/generate?email="
  for round in 1 2; do
    for name in ceiling generate; do
      local url="$base" flag=""
      [ "$name" = ceiling ] && url="$ceiling_url"
      [ "$round" = 1 ] && flag=--warmup
      log "wrk $name, round $round: ${flag:+${warmup} s warm-up + }${seconds} s"
      rps="$(wrk_once bench/wrk/get-varied.lua "$url" "$work/wrk-$name.$round.txt" $flag)"
      rounds[$name]="${rounds[$name]:+${rounds[$name]} / }$rps"
      if [ -z "${best[$name]:-}" ] || awk -v a="$rps" -v b="${best[$name]}" 'BEGIN { exit !(a > b) }'; then
        best[$name]="$rps"
        cp "$work/wrk-$name.$round.txt" "$work/wrk-$name.txt"
      fi
    done
  done
  unset VEIL_PATH_PREFIX
  for name in ceiling generate; do
    record_wrk "$name" "$work/wrk-$name.txt"
    put "wrk.$name.rounds" "${rounds[$name]}"
  done
}

email_batch() {
  awk -v n="$1" 'BEGIN { printf "{\"email\":["; for (i = 0; i < n; i++) printf "%s\"user%d@example.com\"", (i ? "," : ""), i; printf "]}" }'
}

measure_http() {
  local base="http://127.0.0.1:$port" generated bytes refresh_token encoded
  generated="$(curl -sf -H "Authorization: Bearer $api_key" "$base/v1/token/generate?email=bench%40example.com")" \
    || die "generate failed"
  bytes=$(printf '%s' "$generated" | wc -c)
  put body.generate_bytes "$bytes"
  refresh_token="$(jq -r '.body.refresh_token' <<<"$generated")"
  encoded="$(jq -rn --arg t "$refresh_token" '$t | @uri')"

  log "ceiling: FixedJsonServer answering $bytes bytes (pinned to core(s): ${server_cpus:-none})"
  pinned_bg "$server_cpus" "$work/ceiling.log" java -cp "$(bench_cp)" dev.veil.bench.FixedJsonServer \
    "$ceiling_port" "$bytes"
  local ceiling_pid=$bg_pid
  for _ in $(seq 300); do grep -qs '^port=' "$work/ceiling.log" && break; sleep 0.1; done
  grep -qs '^port=' "$work/ceiling.log" || die "FixedJsonServer did not start"
  run_ceiling_and_generate "http://127.0.0.1:$ceiling_port" "$base"
  kill "$ceiling_pid"
  wait "$ceiling_pid" 2>/dev/null || true

  VEIL_PATH="/v1/token/refresh?refresh_token=$encoded" run_wrk refresh bench/wrk/get-fixed.lua "$base"
  VEIL_PATH_PREFIX="/v1/identity/map?email=" run_wrk map_get bench/wrk/get-varied.lua "$base"
  local batch
  for batch in 1000 5000; do
    email_batch "$batch" >"$work/batch-$batch.json"
    VEIL_PATH="/v1/identity/map" VEIL_BODY_FILE="$work/batch-$batch.json" \
      run_wrk "map_post_$batch" bench/wrk/post-body.lua "$base"
  done
}

measure_latency() {
  local max rate
  max="$(awk -F= '$1 == "wrk.generate.rps" {print $2}' "$results")"
  rate=$(awk -v m="$max" 'BEGIN { printf "%d", m / 2 }')
  (( rate > 0 )) || die "no generate throughput to halve"
  log "latency: generate at a constant $rate req/s (half of $max), ${warmup} s warm-up + 15 s"
  pinned "$load_cpus" java -cp "$(bench_cp)" dev.veil.bench.ConstantRateLoad --port "$port" \
    --path '/v1/token/generate?email=user{n}%40example.com' --header "Authorization: Bearer $api_key" \
    --rate "$rate" --seconds 15 --warmup "$warmup" --connections "$connections" --label latency \
    | grep '^latency\.' | tee -a "$results" >&2
}

main() {
  [ "${1:-}" = "--no-build" ] || build
  check_tools
  : >"$results"
  record_machine
  run_jmh
  run_optout_memory
  measure_starts
  create_api_key "$work/data/admin.key" "$grpc_port" GENERATOR,MAPPER
  measure_http
  measure_latency
  stop_server
  put machine.load_after "$(cut -d' ' -f1-3 /proc/loadavg)"
  log "results in $work; rewriting docs/benchmarks.md"
  java -cp "$(bench_cp)" dev.veil.bench.BenchReport "$results" "$work/jmh.json" docs/benchmarks.md
}

main "$@"

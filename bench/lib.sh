# Shell functions shared by the load scripts in bench/ (sourced, not run). The caller sets
# `log_tag` (the prefix of its log lines) and `results` (the properties file `put` appends to)
# before calling them.

log() { printf '[%s %s] %s\n' "$log_tag" "$(date +%H:%M:%S)" "$*" >&2; }
put() { printf '%s=%s\n' "$1" "$2" >>"$results"; }
die() { log "error: $*"; exit 1; }

# Sets server_cpus and load_cpus: $VEIL_BENCH_SERVER_CPUS and $VEIL_BENCH_LOAD_CPUS when set (empty:
# unpinned); else, with 2 or more cores, core 0 for the server(s) and core 1 for the load; else none.
choose_cpus() {
  local server=0 load=1
  if [ "$(nproc)" -lt 2 ]; then server="" load=""; fi
  server_cpus="${VEIL_BENCH_SERVER_CPUS-$server}"
  load_cpus="${VEIL_BENCH_LOAD_CPUS-$load}"
}

# Runs a command pinned to the given cores, or unpinned when the list is empty.
pinned() {
  local cpus="$1"
  shift
  if [ -n "$cpus" ]; then taskset -c "$cpus" "$@"; else "$@"; fi
}

# Whether something accepts TCP connections on 127.0.0.1:$1.
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# require_tools TOOL...: wrk (installed from Debian when root), then every named tool.
require_tools() {
  if ! command -v wrk >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      log "installing wrk (Debian package)"
      apt-get install -y wrk >/dev/null
    else
      die "wrk is missing: apt-get install wrk"
    fi
  fi
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || die "$tool is missing"
  done
}

# The run's date and commit and the machine it ran on (cores, CPU, memory, Java, wrk, load).
record_machine_common() {
  put run.date "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  put run.commit "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with uncommitted changes)')"
  put machine.nproc "$(nproc)"
  put machine.cpu "$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)"
  put machine.memory "$(awk '/^MemTotal/{printf "%.0f GiB RAM", $2/1048576}' /proc/meminfo)"
  put machine.java "$(java -version 2>&1 | head -n 1)"
  put machine.wrk "$(wrk -v 2>&1 | head -n 1 | awk '{print $1, $2}')"
  put machine.load_before "$(cut -d' ' -f1-3 /proc/loadavg)"
}

# create_api_key ADMIN_KEY_FILE GRPC_PORT ROLES: a new client through `veil admin`; sets api_key
# and exports it as VEIL_KEY (read by the wrk scripts).
create_api_key() {
  local key_file="$1" grpc="$2" roles="$3" out
  [ -s "$key_file" ] || die "no admin key in $key_file (was the store not empty?)"
  out="$(java -jar veil-cli/target/veil.jar admin client create --name bench --roles "$roles" \
    --port "$grpc" --key "$(head -n 1 "$key_file")" 2>&1)" || { echo "$out" >&2; die "cannot create an API key"; }
  # The key's own pattern: stderr's warning may land on the same line when both are captured.
  api_key="$(grep -oE 'vk1\.[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{43}' <<<"$out" | head -n 1)"
  [ -n "$api_key" ] || { echo "$out" >&2; die "no API key in the admin CLI's output"; }
  export VEIL_KEY="$api_key"
}

# Converts a wrk duration (850.00us, 1.23ms, 2.00s) to milliseconds, with $2 decimals (3).
to_ms() {
  awk -v d="$1" -v places="${2:-3}" 'BEGIN {
      v = d + 0
      if (d ~ /us$/) v = v / 1000; else if (d ~ /ms$/) v = v; else if (d ~ /m$/) v = v * 60000; else if (d ~ /s$/) v = v * 1000
      printf "%." places "f", v
    }'
}

# The median of the numbers on standard input, one per line.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# CPU time a process has used so far (user + system), in clock ticks (getconf CLK_TCK per second).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# cpu_seconds_since PID TICKS: CPU seconds the process has used since cpu_ticks printed TICKS.
cpu_seconds_since() {
  awk -v a="$(cpu_ticks "$1")" -v b="$2" -v t="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (a - b) / t }'
}

# write_emails N FILE: N distinct emails, one per line (the input of the veil map benchmarks).
write_emails() {
  awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "user%d.%d@example%d.com\n", i, (i * 7919) % 1000003, i % 97 }' >"$2"
}

# start_serve JAR DIR CPUS: `veil serve` on a fresh embedded store in DIR/data, on free ports,
# pinned to CPUS (none if empty), its log in DIR/server.log; waits until it is ready and sets
# server_pid, url (the public API) and grpc_port.
start_serve() {
  local jar="$1" dir="$2" cpus="$3" serve
  serve=(java -jar "$jar" serve --data-dir "$dir/data" --port 0 --grpc-port 0 --console-port 0)
  if [ -n "$cpus" ]; then serve=(taskset -c "$cpus" "${serve[@]}"); fi
  "${serve[@]}" >"$dir/server.log" 2>&1 & # taskset execs java: $! is the server's pid
  server_pid=$!
  local _
  for _ in $(seq 1 240); do
    grep -q "admin gRPC" "$dir/server.log" && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$dir/server.log" >&2; die "veil serve did not start"; }
    sleep 0.5
  done
  grep -q "admin gRPC" "$dir/server.log" || die "veil serve was not ready after 120 s"
  url="http://127.0.0.1:$(sed -n 's|.*public API *http://[^:]*:\([0-9]*\)/.*|\1|p' "$dir/server.log" | head -1)"
  grpc_port="$(sed -n 's|.*admin gRPC *[^:]*:\([0-9]*\).*|\1|p' "$dir/server.log" | head -1)"
}

# The JVM options that `veil map` runs with, for benchmark runs that start the JVM themselves:
# VEIL_JAVA_OPTS when set (even empty: the launcher then adds none of its own), else the -X options
# of the block of ./veil that applies them. Needs $here (the repository).
map_jvm_options() {
  if [ -n "${VEIL_JAVA_OPTS+set}" ]; then
    printf '%s\n' "$VEIL_JAVA_OPTS"
    return
  fi
  local options
  options="$(sed -n '/= map \] && \[ -z "${VEIL_JAVA_OPTS+set}" \]; then/,/^fi/p' "$here/veil" | grep -oE -- '-X[^ )"]+' | tr '\n' ' ')"
  [ -n "$options" ] || die "cannot read veil map's JVM options from ./veil"
  printf '%s\n' "$options"
}

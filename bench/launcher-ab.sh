#!/usr/bin/env bash
# Compares the start-up of two checkouts' `./veil` launchers, each with its own build, as a user
# meets it: the wall time from the shell's fork to the exit, for
#   ./veil --version        the launcher and the JVM, nothing of Veil's work
#   ./veil map --help       veil map's command line, built alone (Main.clientCommand)
#   ./veil map              a small file (M emails, default 1,000) mapped from scratch
#
#   bench/launcher-ab.sh A_ROOT B_ROOT     # RUNS (default 21) interleaved runs of each command
#
# Both checkouts must be built (their launchers are run with VEIL_NO_BUILD=1); B must have the
# veil-cli module (its jar runs the node and creates the key). B's `veil serve`
# runs on CPU 0 with a fresh embedded store; every client run is on CPU 1, A and B alternating
# which goes first. Each launcher first runs every command a few times, so that it writes and
# adopts its class-data archives (as a user's first runs after a build do); the timed runs use
# them, and `veil map` its runtime image, as the launcher gives them. Reports per command the
# medians in milliseconds, the median of the pairwise differences (B minus A) and in how many pairs
# B was faster.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=bench/lib.sh
. "$here/bench/lib.sh"
log_tag=launcher-ab
results=/dev/null
[ $# = 2 ] || { sed -n '7p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2; exit 2; }
a="$(cd "$1" && pwd)"
b="$(cd "$2" && pwd)"
runs="${RUNS:-21}"
m="${M:-1000}"
for root in "$a" "$b"; do
  [ -x "$root/veil" ] || die "no launcher at $root/veil"
done
[ "$(nproc)" -ge 2 ] || die "needs two CPUs (the server on one, the client on the other)"

work="$(mktemp -d /tmp/veil-launcher-ab.XXXXXX)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

jar="$b/veil-cli/target/veil.jar"
log "start veil serve of $b on CPU 0 (embedded store in $work)"
start_serve "$jar" "$work" 0
(cd "$b" && create_api_key "$work/data/admin.key" "$grpc_port" MAPPER && echo "$VEIL_KEY" >"$work/key")
export VEIL_API_KEY="$(cat "$work/key")"
write_emails "$m" "$work/emails.txt"

# once ROOT COMMAND: one run on CPU 1; prints its wall time in milliseconds.
once() {
  local root="$1" command="$2" start end
  rm -f "$work"/out.csv*
  start="$(date +%s%N)"
  case "$command" in
    version) VEIL_NO_BUILD=1 taskset -c 1 "$root/veil" --version >/dev/null ;;
    help) VEIL_NO_BUILD=1 taskset -c 1 "$root/veil" map --help >/dev/null ;;
    map) VEIL_NO_BUILD=1 taskset -c 1 "$root/veil" map --in "$work/emails.txt" \
      --out "$work/out.csv" --url "$url" --progress none 2>"$work/map.log" \
      || { cat "$work/map.log" >&2; die "veil map ($root) failed"; } ;;
  esac
  end="$(date +%s%N)"
  echo $(((end - start) / 1000000))
}

log "warm-up: each launcher writes and adopts its archives"
for _ in 1 2 3 4; do
  for root in "$a" "$b"; do
    for command in version help map; do once "$root" "$command" >/dev/null; done
  done
done

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "A: $a"
echo "B: $b"
printf '%-18s %7s %7s %11s %9s   (%s runs each, %s emails; ms)\n' command A B 'B - A' 'B faster' \
  "$runs" "$m"
for command in version help map; do
  : >"$work/pairs.txt"
  for i in $(seq 1 "$runs"); do
    if [ $((i % 2)) = 1 ]; then
      ta="$(once "$a" "$command")"; tb="$(once "$b" "$command")"
    else
      tb="$(once "$b" "$command")"; ta="$(once "$a" "$command")"
    fi
    echo "$ta $tb" >>"$work/pairs.txt"
  done
  case "$command" in
    version) label="./veil --version" ;;
    help) label="./veil map --help" ;;
    map) label="./veil map" ;;
  esac
  printf '%-18s %7s %7s %11s %9s\n' "$label" \
    "$(awk '{ print $1 }' "$work/pairs.txt" | median)" \
    "$(awk '{ print $2 }' "$work/pairs.txt" | median)" \
    "$(awk '{ print $2 - $1 }' "$work/pairs.txt" | median)" \
    "$(awk '$2 < $1' "$work/pairs.txt" | wc -l)/$runs"
done

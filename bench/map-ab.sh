#!/usr/bin/env bash
# Compares two builds of `veil map` on this machine, where one figure alone says little: the same
# core does the same work up to twice as fast from one minute to the next, and two copies of one
# jar differed by a median 0.18 s of wall time over 10 interleaved pairs (2 vCPU Intel Xeon,
# 2026-11-26, docs/benchmarks-client.md).
#
#   bench/map-ab.sh save NAME        # keep the current build (veil.jar and its lib/) as NAME
#   bench/map-ab.sh compare A B      # PAIRS (default 20) interleaved runs of each
#   bench/map-ab.sh compare A A      # one build against itself: how far noise alone goes
#
# A saved build's extra.options file, if there is one, adds JVM options to that build's runs (to
# compare options: save the same build twice and give one of them an extra.options), and its
# java.home file, if there is one, names the Java home to run it with (to compare JVMs or runtime
# images; default: the java on PATH).
# Saved builds live in veil-cli/target/map-ab/NAME (so `mvn clean` removes them). `compare`
# starts build A's `veil serve` on CPU 0 with a fresh embedded store, maps N (default 1,000,000) emails
# from scratch with each build on CPU 1, alternating which goes first, and reports per build the
# medians of:
#   - wall: the launch of the JVM to its exit;
#   - client CPU: user + system time of veil map;
#   - unserved: wall minus the server's CPU time during the run, i.e. the time the server did not
#     work. It leaves out how fast the server happened to be, which moves the most from run to run,
#     so it shows the client's start, ramp and tail with much less noise than the wall time.
# It also reports the median of the pairwise differences (B minus A) and in how many pairs B was
# lower. The builds run with the launcher's JVM options for `veil map` (read from ./veil), or
# VEIL_JAVA_OPTS in their place, and each with a class-data archive of its own, as the launcher
# gives them.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=bench/lib.sh
. "$here/bench/lib.sh"
log_tag=map-ab
results=/dev/null
saved="$here/veil-cli/target/map-ab"

usage() {
  sed -n '7,14p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2
  exit 2
}

save() {
  local name="$1" target="$here/veil-cli/target"
  [ -f "$target/veil.jar" ] || (cd "$here" && ./mvnw -q -B -DskipTests -pl veil-cli -am package >&2)
  rm -rf "${saved:?}/$name"
  mkdir -p "$saved/$name"
  cp -r "$target/veil.jar" "$target/lib" "$saved/$name/"
  log "saved the current build as $name ($saved/$name)"
}

compare() {
  local a="$1" b="$2" name
  for name in "$a" "$b"; do
    [ -f "$saved/$name/veil.jar" ] || die "no saved build $name: run bench/map-ab.sh save $name first"
  done
  cd "$here"
  [ "$(nproc)" -ge 2 ] || die "needs two CPUs (the server on one, veil map on the other)"
  local tool
  for tool in taskset java; do command -v "$tool" >/dev/null || die "$tool is missing"; done
  local i options pairs="${PAIRS:-20}" n="${N:-1000000}"
  options="$(map_jvm_options)"

  work="$(mktemp -d /tmp/veil-map-ab.XXXXXX)"
  server_pid=""
  trap 'cleanup_compare' EXIT
  log "start veil serve on CPU 0 (embedded store in $work)"
  start_serve "$saved/$a/veil.jar" "$work" 0
  create_api_key "$work/data/admin.key" "$grpc_port" MAPPER
  key="$VEIL_KEY"
  write_emails "$n" "$work/emails.txt"
  head -n 20000 "$work/emails.txt" >"$work/warm-up.txt"

  # Each build writes its archive, then uses it once (as its first runs after a build would).
  for name in "$a" "$b"; do
    if [ ! -f "$saved/$name/map.jsa" ]; then
      map_once "$name" "$work/warm-up.txt" "-XX:ArchiveClassesAtExit=$saved/$name/map.jsa" >/dev/null
    fi
    map_once "$name" "$work/warm-up.txt" "" >/dev/null
  done

  log "$pairs pairs of $n emails: $a and $b, alternating which goes first; JVM options: $options"
  : >"$work/pairs.txt"
  local ra rb
  for i in $(seq 1 "$pairs"); do
    if [ $((i % 2)) = 1 ]; then
      ra="$(map_once "$a" "$work/emails.txt" "")"; rb="$(map_once "$b" "$work/emails.txt" "")"
    else
      rb="$(map_once "$b" "$work/emails.txt" "")"; ra="$(map_once "$a" "$work/emails.txt" "")"
    fi
    echo "$ra $rb" >>"$work/pairs.txt"
    log "  pair $i: $a wall/CPU/unserved $(cut -d' ' -f1-3 <<<"$ra"), $b $(cut -d' ' -f1-3 <<<"$rb")"
  done
  report "$a" "$b" "$work/pairs.txt"
}

cleanup_compare() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}

# map_once NAME INPUT EXTRA: one `veil map` from scratch on CPU 1; prints "wall cpu unserved".
map_once() {
  local name="$1" in="$2" extra="$3" cds before start end server_cpu user sys
  local own=""
  [ -f "$saved/$name/extra.options" ] && own="$(cat "$saved/$name/extra.options")"
  local java=java
  [ -f "$saved/$name/java.home" ] && java="$(cat "$saved/$name/java.home")/bin/java"
  cds="-XX:SharedArchiveFile=$saved/$name/map.jsa"
  [ -n "$extra" ] && cds="$extra"
  rm -f "$work/out.csv" "$work/out.csv.veil-state" "$work/out.csv.tmp" "$work/out.csv.rejected.csv" "$work/out.csv.rejected.csv.tmp"
  before="$(cpu_ticks "$server_pid")"
  start="$(date +%s.%N)"
  # shellcheck disable=SC2086 # the options are a list, split on purpose
  VEIL_API_KEY="$key" taskset -c 1 /usr/bin/time -f "%U %S" -o "$work/time.txt" \
    "$java" "$cds" -Xlog:cds=off,cds+dynamic=off $options $own -jar "$saved/$name/veil.jar" \
    map --in "$in" --out "$work/out.csv" --url "$url" --progress none 2>"$work/map.log" \
    || { cat "$work/map.log" >&2; die "veil map ($name) failed"; }
  end="$(date +%s.%N)"
  server_cpu="$(cpu_seconds_since "$server_pid" "$before")"
  read -r user sys <"$work/time.txt"
  awk -v s="$start" -v e="$end" -v u="$user" -v y="$sys" -v c="$server_cpu" \
    'BEGIN { printf "%.3f %.2f %.3f\n", e - s, u + y, e - s - c }'
}

report() {
  local a="$1" b="$2" f="$3" n
  n="$(wc -l <"$f")"
  col() { awk -v c="$1" '{ print $c }' "$f" | median; }
  pairdiff() { awk -v x="$1" -v y="$2" '{ printf "%.3f\n", $y - $x }' "$f" | median; }
  lower() { awk -v x="$1" -v y="$2" '$y < $x' "$f" | wc -l; }
  echo
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $n pairs; server on CPU 0, veil map on CPU 1"
  printf '%-12s  %9s  %11s  %9s   (medians, seconds)\n' build wall "client CPU" unserved
  printf '%-12s  %9s  %11s  %9s\n' "$a" "$(col 1)" "$(col 2)" "$(col 3)"
  printf '%-12s  %9s  %11s  %9s\n' "$b" "$(col 4)" "$(col 5)" "$(col 6)"
  printf '%-12s  %9s  %11s  %9s   (median of the pairs, %s minus %s)\n' difference "$(pairdiff 1 4)" "$(pairdiff 2 5)" "$(pairdiff 3 6)" "$b" "$a"
  printf '%-12s  %9s  %11s  %9s   (pairs in which %s was lower, of %s)\n' "$b lower" "$(lower 1 4)" "$(lower 2 5)" "$(lower 3 6)" "$b" "$n"
}

case "${1:-}" in
  save) [ $# = 2 ] || usage; save "$2" ;;
  compare) [ $# = 3 ] || usage; compare "$2" "$3" ;;
  *) usage ;;
esac

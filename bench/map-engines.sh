#!/usr/bin/env bash
# `veil map` end to end on N (default 1,000,000) emails: the release before the mapping cache (its
# own store and pipeline, v1; built from OLD_COMMIT, default b3a159f, in a temporary worktree)
# against this `veil map` on the mapping cache over v1 and over v3 (with the client's secret), in the
# same run. Each run maps the file from scratch (no output, state or cache file) through one
# `veil serve` (this build, fresh embedded store) with the launchers as users start them
# (`./veil map`, VEIL_NO_BUILD=1). With 2 or more CPUs the server runs on CPU 0 and every
# `veil map` on CPU 1. REPEAT (default 3) rounds; each round runs the three in a rotated order, so
# that a machine shared with other work weighs on all three alike; the summary gives the medians.
#
#   bench/map.sh engines                   # 1,000,000 emails, 3 rounds
#   N=200000 REPEAT=1 bench/map.sh engines # a quick look
#
# Per run: wall time from the launcher's start to its exit, identifiers per second, CPU of veil map
# (user + system) and of the server, peak resident memory of veil map. Results go to
# docs/benchmarks-client.md by hand, with the machine and this command.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=bench/lib.sh
. "$here/bench/lib.sh"
log_tag=map-engines
results=/dev/null
n="${N:-1000000}"
rounds="${REPEAT:-3}"
old_commit="${OLD_COMMIT:-b3a159f}"
work="$(mktemp -d /tmp/veil-map-engines.XXXXXX)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
  fi
  git -C "$here" worktree remove --force "$work/old" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
require_tools taskset
if [ "$(nproc)" -ge 2 ]; then server_cpus=0 client_cpus=1; else server_cpus="" client_cpus=""; fi
cd "$here"

log "build this commit ($(git rev-parse --short HEAD))"
./mvnw -q -B -DskipTests -pl veil-cli -am package >&2
log "build the release before the mapping cache ($old_commit) in $work/old"
git worktree add --detach "$work/old" "$old_commit" >/dev/null 2>&1
(cd "$work/old" && ./mvnw -q -B -DskipTests -pl veil-cli -am package >&2)

log "start veil serve (this build, default 1,048,576 buckets) on CPU(s) ${server_cpus:-any}"
start_serve "veil-cli/target/veil.jar" "$work" "$server_cpus"
out="$(java -jar veil-cli/target/veil.jar admin client create --name bench --roles MAPPER \
  --port "$grpc_port" --key "$(head -n 1 "$work/data/admin.key")" 2>&1)" || die "cannot create a client"
key="$(grep -oE 'vk1\.[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{43}' <<<"$out" | head -n 1)"
secret="$(sed -n 's/^Secret: *//p' <<<"$out" | head -n 1)"
[ -n "$key" ] && [ -n "$secret" ] || die "no key or secret in the admin CLI's output"
unset out
write_emails "$n" "$work/emails.txt"
head -n 20000 "$work/emails.txt" >"$work/warm-up.txt"

# run NAME IN: maps IN from scratch with the build NAME (old, v1, v3) on the client's CPUs under GNU
# time; checks the rows and prints "<ids/s> <wall s> <client CPU s> <peak RSS MB> <server CPU s>".
run() {
  local name="$1" in="$2" launcher="$here/veil" before start end server_cpu rows lines wall user sys rss
  local secret_env=""
  [ "$name" = old ] && launcher="$work/old/veil"
  [ "$name" = v3 ] && secret_env="$secret"
  rm -f "$work"/mapped.csv*
  before="$(cpu_ticks "$server_pid")"
  start="$(date +%s.%N)"
  VEIL_NO_BUILD=1 VEIL_API_KEY="$key" VEIL_CLIENT_SECRET="$secret_env" \
    pinned "$client_cpus" /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" \
    "$launcher" map --in "$in" --out "$work/mapped.csv" --url "$url" --progress none \
    >"$work/map.log" 2>&1 || { cat "$work/map.log" >&2; die "$name failed"; }
  end="$(date +%s.%N)"
  server_cpu="$(cpu_seconds_since "$server_pid" "$before")"
  rows="$(($(wc -l <"$work/mapped.csv") - 1))"
  lines="$(wc -l <"$in")"
  [ "$rows" -eq "$lines" ] || die "$name: expected $lines rows, got $rows"
  read -r wall user sys rss <"$work/time.txt"
  awk -v n="$lines" -v s="$start" -v e="$end" -v w="$wall" -v u="$user" -v y="$sys" -v r="$rss" \
    -v c="$server_cpu" 'BEGIN { printf "%.0f %.2f %.2f %.0f %s\n", n / (e - s), w, u + y, r / 1024, c }'
}

log "warm-up: each build maps 20,000 emails twice (class-data archives, the server's JIT)"
for name in old v1 v3 old v1 v3; do run "$name" "$work/warm-up.txt" >/dev/null; done
log "warm-up: one whole v3 run (the server's AES-GCM compiled by its top tier before round 1)"
run v3 "$work/emails.txt" >/dev/null

names=(old v1 v3)
for round in $(seq 1 "$rounds"); do
  log "round $round of $rounds (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  for i in 0 1 2; do
    name="${names[$(((i + round - 1) % 3))]}"
    run "$name" "$work/emails.txt" >"$work/m.txt"
    read -r rate wall cpu rss server_cpu <"$work/m.txt"
    echo "$name $rate $wall $cpu $rss $server_cpu" >>"$work/rounds.txt"
    log "  $name: $rate ids/s, wall $wall s, client CPU $cpu s, peak RSS $rss MB, server CPU $server_cpu s"
  done
done

log "medians over $rounds rounds, $n emails"
for name in old v1 v3; do
  m() { awk -v k="$name" -v f="$1" '$1 == k { print $f }' "$work/rounds.txt" | median; }
  printf '%-4s %s ids/s, wall %s s, client CPU %s s, peak RSS %s MB, server CPU %s s\n' \
    "$name" "$(m 2)" "$(m 3)" "$(m 4)" "$(m 5)" "$(m 6)"
done

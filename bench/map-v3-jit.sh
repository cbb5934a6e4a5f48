#!/usr/bin/env bash
# `veil map` over v3 on 1,000,000 emails, two JVM settings in one run: A, the launcher's options
# for v1 (the JIT's first tier only), and B, the launcher as it starts a v3 run (the top tier kept
# for the JDK's AES-GCM code). One `veil serve` of this build (fresh embedded store) on CPU 0, every
# `veil map` on CPU 1, from scratch, after two warm-up runs of each; four rounds, the order
# alternating. Prints ids/s, wall time, client CPU and peak RSS per run. Needs a built
# veil-cli/target/veil.jar (./mvnw -DskipTests -pl veil-cli -am package) and taskset. A_OPTS, if
# set, replaces A's options (for instance with an earlier launcher's v3 options).
#
#   bench/map-v3-jit.sh
#   A_OPTS='-XX:+UseSerialGC …' bench/map-v3-jit.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$here/bench/lib.sh"
log_tag=map-v3-jit
results=/dev/null
work="$(mktemp -d /tmp/veil-map-v3-jit.XXXXXX)"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
cd "$here"
start_serve "veil-cli/target/veil.jar" "$work" 0
out="$(java -jar veil-cli/target/veil.jar admin client create --name bench --roles MAPPER \
  --port "$grpc_port" --key "$(head -n 1 "$work/data/admin.key")" 2>&1)"
key="$(grep -oE 'vk1\.[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{43}' <<<"$out" | head -n 1)"
secret="$(sed -n 's/^Secret: *//p' <<<"$out" | head -n 1)"
write_emails 1000000 "$work/emails.txt"
head -n 20000 "$work/emails.txt" >"$work/warm.txt"
A="${A_OPTS:-}"
[ -n "$A" ] || A='-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:Tier3BackEdgeThreshold=5000 -XX:+UseTransparentHugePages -Xmn32m -XX:SurvivorRatio=3 -XX:-UsePerfData -XX:+UnlockDiagnosticVMOptions -XX:ArchiveRelocationMode=0 -XX:CompileCommand=quiet -XX:CompileCommand=exclude,java/util/Properties*.* -XX:CompileCommand=exclude,java/util/zip/ZipFile*.* -XX:CompileCommand=exclude,java/lang/module/*.* -XX:CompileCommand=exclude,jdk/internal/module/*.*'
run() {
  local name="$1" in="$2" start end
  rm -f "$work"/mapped.csv*
  start="$(date +%s.%N)"
  if [ "$name" = A ]; then
    VEIL_JAVA_OPTS="$A" VEIL_NO_BUILD=1 VEIL_API_KEY="$key" VEIL_CLIENT_SECRET="$secret" pinned 1 /usr/bin/time -f "%e %U %S %M" -o "$work/t" ./veil map --in "$in" --out "$work/mapped.csv" --url "$url" --progress none >/dev/null 2>&1
  else
    VEIL_NO_BUILD=1 VEIL_API_KEY="$key" VEIL_CLIENT_SECRET="$secret" pinned 1 /usr/bin/time -f "%e %U %S %M" -o "$work/t" ./veil map --in "$in" --out "$work/mapped.csv" --url "$url" --progress none >/dev/null 2>&1
  fi
  end="$(date +%s.%N)"
  read -r wall user sys rss <"$work/t"
  awk -v n="$(wc -l <"$in")" -v s="$start" -v e="$end" -v u="$user" -v y="$sys" -v r="$rss" -v name="$name" 'BEGIN { printf "%s %.0f ids/s wall %.2f s client CPU %.2f s RSS %.0f MB\n", name, n/(e-s), e-s, u+y, r/1024 }'
}
for n in A B A B; do run "$n" "$work/warm.txt" >/dev/null; done
# One whole run more, so that the server's own AES-GCM is compiled by its top tier before round 1
# (a few warm-up requests are not enough for that).
run B "$work/emails.txt" >/dev/null
for round in 1 2 3 4; do
  log "round $round (load $(cut -d' ' -f1-3 /proc/loadavg))"
  if [ $((round % 2)) = 1 ]; then run A "$work/emails.txt"; run B "$work/emails.txt"; else run B "$work/emails.txt"; run A "$work/emails.txt"; fi
done

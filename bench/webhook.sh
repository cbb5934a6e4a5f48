#!/usr/bin/env bash
# Webhook delivery of many opt-outs with the receiver up (docs/spec.md 4.1): one node on 127.0.0.1,
# writer threads recording opt-outs through POST /v1/optout, a Vert.x receiver on 127.0.0.1 that
# verifies every signature. Prints the write rate, the delivery throughput and the lag from
# acknowledgement to arrival (p50, p90, p99, max). Results: docs/benchmarks.md, "Webhook delivery".
#   bench/webhook.sh                                     # 100,000 opt-outs, 8 writers, SQLite
#   bench/webhook.sh --count 100000 --clients 8 --concurrency 16 --max-seconds 600
#   bench/webhook.sh --backlog true --max-backoff 1s      # receiver 503 while writing, then 200: drain rate
#   bench/webhook.sh --db 'postgresql://postgres@127.0.0.1:5432/test?currentSchema=bench'  # an empty schema
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -q -B -pl veil-bench -am package -DskipTests
jar=$(ls veil-bench/target/veil-bench-*.jar | grep -v -e sources -e javadoc | head -1)
exec java -Xmx1g -cp "$jar:veil-bench/target/lib/*" dev.veil.bench.WebhookDeliveryBench "$@"

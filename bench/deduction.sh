#!/usr/bin/env bash
# DeductionAdminApi throughput over a real gRPC channel: CreateDeduction (durable writes)
# and GetDeductionList of 10,000 records, as RPCs/s with latency percentiles. Results and the
# machine they were measured on: docs/benchmarks-deduction.md.
#   bench/deduction.sh                                   # embedded store (SQLite), 8 client threads
#   bench/deduction.sh --clients 4 --seconds 20
#   bench/deduction.sh --db 'postgresql://postgres@127.0.0.1:5432/test?currentSchema=bench'  # an empty schema
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -q -B -pl veil-bench -am package -DskipTests
jar=$(ls veil-bench/target/veil-bench-*.jar | grep -v -e sources -e javadoc | head -1)
exec java -Xmx1g -cp "$jar:veil-bench/target/lib/*" dev.veil.bench.DeductionRpcBench "$@"

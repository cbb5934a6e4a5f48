/**
 * Veil's benchmarks. Nothing here runs in CI; {@code bench/run.sh} runs it all and rewrites {@code
 * docs/benchmarks.md}.
 *
 * <ul>
 *   <li>JMH benchmarks of the per-request work: {@link dev.veil.bench.IdentityBenchmark}
 *       (normalization and hashing, the limit of map throughput), {@link
 *       dev.veil.bench.TokenCodecBenchmark} (token encode and decode) and {@link
 *       dev.veil.bench.ServiceBenchmark} (a whole generate and a single map through the real
 *       services).
 *   <li>{@link dev.veil.bench.V2EnvelopeBenchmark}: what a v2 token call adds to its v1 twin, step
 *       by step (the envelope, the refresh response key); not run by {@code bench/run.sh}.
 *   <li>{@link dev.veil.bench.AesGcmKeySwitchBenchmark}: guards against paying for an AES key
 *       change.
 *   <li>{@link dev.veil.bench.OptOutMemory}: bytes per record of the opt-out index at 10 million.
 *   <li>{@link dev.veil.bench.FixedJsonServer}: the HTTP ceiling, a Vert.x server that does no
 *       work.
 *   <li>{@link dev.veil.bench.ConstantRateLoad}: an open-loop load generator for latency at a fixed
 *       rate (wrk cannot pace).
 *   <li>{@link dev.veil.bench.BenchReport}: turns the measurements of one run into the table of
 *       {@code docs/benchmarks.md}.
 * </ul>
 */
package dev.veil.bench;

package dev.veil.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Turns the measurements of one {@code bench/run.sh} run into Markdown: the machine, the targets
 * with pass or fail, the HTTP and JMH tables, start-up and memory. Prints the Markdown and writes
 * it into {@code docs/benchmarks.md} between the {@link #BEGIN} and {@link #END} markers, keeping
 * the hand-written text around them.
 *
 * <p>Usage: {@code BenchReport <results.properties> <jmh.json> <docs/benchmarks.md>}. The
 * properties are the {@code key=value} lines the script and the other tools of this package
 * printed; a missing figure shows as "n/a" and its target as "not measured".
 */
public final class BenchReport {
  static final String BEGIN =
      "<!-- BEGIN bench/run.sh results: generated, edits here are overwritten -->";
  static final String END = "<!-- END bench/run.sh results -->";

  private static final String JMH_PREFIX = "dev.veil.bench.";
  private static final String[][] HTTP_ROWS = {
    {"ceiling", "Ceiling: fixed JSON of the generate response's size", "1"},
    {"generate", "`GET /v1/token/generate?email=` (varied emails)", "1"},
    {"refresh", "`GET /v1/token/refresh` (one pre-generated token)", "1"},
    {"map_get", "`GET /v1/identity/map?email=` (varied emails)", "1"},
    {"map_post_1000", "`POST /v1/identity/map`, 1,000 emails", "1000"},
    {"map_post_5000", "`POST /v1/identity/map`, 5,000 emails", "5000"},
  };

  private final Properties results;
  private final Map<String, JsonNode> jmh;
  private final StringBuilder md = new StringBuilder();

  private BenchReport(Properties results, Map<String, JsonNode> jmh) {
    this.results = results;
    this.jmh = jmh;
  }

  public static void main(String[] args) throws IOException {
    Properties results = new Properties();
    try (Reader in = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
      results.load(in);
    }
    Map<String, JsonNode> jmh = readJmh(Path.of(args[1]));
    String report = new BenchReport(results, jmh).render();
    System.out.println(report);
    Path doc = Path.of(args[2]);
    Files.writeString(
        doc,
        splice(Files.exists(doc) ? Files.readString(doc) : "", report),
        StandardCharsets.UTF_8);
  }

  /** Benchmark short name ({@code IdentityBenchmark.parseEmail}) → its JMH result. */
  private static Map<String, JsonNode> readJmh(Path file) throws IOException {
    Map<String, JsonNode> byName = new LinkedHashMap<>();
    if (!Files.exists(file)) {
      return byName;
    }
    for (JsonNode run : new ObjectMapper().readTree(file.toFile())) {
      byName.put(run.get("benchmark").asText().replace(JMH_PREFIX, ""), run);
    }
    return byName;
  }

  /**
   * {@code doc} with the text between the markers replaced by {@code report} (appended if none).
   */
  static String splice(String doc, String report) {
    String block = BEGIN + "\n" + report + "\n" + END;
    int begin = doc.indexOf(BEGIN);
    int end = doc.indexOf(END);
    if (begin < 0 || end < begin) {
      return (doc.isBlank() ? "# Benchmarks\n" : doc.stripTrailing() + "\n") + "\n" + block + "\n";
    }
    return doc.substring(0, begin) + block + doc.substring(end + END.length());
  }

  private String render() {
    machine();
    targets();
    http();
    jmhTable();
    startAndMemory();
    return md.toString().stripTrailing();
  }

  private void machine() {
    line("## Latest run");
    line("");
    line("- Date: " + get("run.date") + "; commit `" + get("run.commit") + "`");
    line(
        "- Machine: "
            + get("machine.nproc")
            + " cores (`nproc`), "
            + get("machine.cpu")
            + "; "
            + get("machine.memory"));
    line("- Java: " + get("machine.java") + "; wrk: " + get("machine.wrk"));
    line(
        "- Load average before / after the run: "
            + get("machine.load_before")
            + " / "
            + get("machine.load_after")
            + " (other work on the machine makes every figure noisier)");
    line("- Command: `" + get("run.command") + "`");
    line("- Pinning: " + get("run.pinning"));
    line("- wrk: " + get("run.wrk_settings"));
    line("- JMH: " + get("run.jmh_settings"));
    line("");
  }

  private void targets() {
    double generate = num("wrk.generate.rps");
    double ceiling = num("wrk.ceiling.rps");
    double cores = num("run.server_cores");
    double hashingNs = score("ServiceBenchmark.mapHashing");
    double limit = 1e9 / hashingNs * cores;
    line("### Targets");
    line("");
    line("| What | Measured | Target | Result |");
    line("|---|---|---|---|");
    ratioRow(
        "Generate throughput, % of the HTTP ceiling",
        generate, ceiling, fmt(generate) + " / " + fmt(ceiling) + " req/s");
    for (String batch : new String[] {"1000", "5000"}) {
      double ids = num("wrk.map_post_" + batch + ".rps") * Integer.parseInt(batch);
      ratioRow(
          "Map POST (" + batch + " emails), % of the hashing limit",
          ids,
          limit,
          fmt(ids) + " ids/s / " + fmt(limit) + " ids/s");
    }
    maxRow(
        "Generate p99 at half the maximum throughput (" + get("latency.target_rps") + " req/s)",
        num("latency.p99_ms"),
        5,
        " ms");
    maxRow(
        "Ready after a restart (second start, same data)", num("start.second_ms") / 1000, 3, " s");
    maxRow(
        "Opt-out index at " + fmt(num("optout.records")) + " records",
        num("optout.bytes_per_record"),
        32,
        " B/record");
    maxRow(
        "Opt-out check and status tables together at " + fmt(num("optout.records")) + " records",
        num("optout.check_and_status_bytes_per_record"),
        32,
        " B/record");
    line("");
    line(
        "The hashing limit is what "
            + fmt(cores)
            + " core(s) of the server could do if they only ran the hashing that mapping one"
            + " identifier requires (`ServiceBenchmark.mapHashing`: normalize and SHA-256 the"
            + " email, first-level hash, bucket, advertising id with the bucket's salt, raw bytes;"
            + " JMH, best iteration: "
            + fmt(hashingNs)
            + " ns per email, so "
            + fmt(limit)
            + " emails/s); the ceiling is `FixedJsonServer` on the "
            + "same core(s) with the same wrk settings.");
    line("");
    line(
        "For comparison (not targets), map POST as a share of other per-identifier costs measured"
            + " by JMH:");
    line("");
    line(
        "| Reference (JMH, best iteration) | ns per email | ids/s on "
            + fmt(cores)
            + " core(s) | 1,000 emails | "
            + "5,000 emails |");
    line("|---|---|---|---|---|");
    referenceRow(
        "`IdentityHash.parse` alone (normalize and SHA-256; the limit before mapHashing)",
        "IdentityBenchmark.parseEmail",
        cores);
    referenceRow(
        "`ServiceBenchmark.mapOne` (the whole single map: hashing, opt-out check, bucket id"
            + " string)",
        "ServiceBenchmark.mapOne",
        cores);
    line("");
  }

  private void referenceRow(String what, String benchmark, double cores) {
    double ns = score(benchmark);
    double limit = 1e9 / ns * cores;
    line(
        "| "
            + what
            + " | "
            + fmt1(ns)
            + " | "
            + fmt(limit)
            + " | "
            + pct(num("wrk.map_post_1000.rps") * 1000, limit)
            + " | "
            + pct(num("wrk.map_post_5000.rps") * 5000, limit)
            + " |");
  }

  private void http() {
    line("### HTTP (wrk, " + get("run.wrk_settings") + ")");
    line("");
    line("| Endpoint | Requests/s | Identifiers/s | p50 | p99 | Errors |");
    line("|---|---|---|---|---|---|");
    for (String[] row : HTTP_ROWS) {
      String k = "wrk." + row[0] + ".";
      double rps = num(k + "rps");
      line(
          "| "
              + row[1]
              + " | "
              + fmt(rps)
              + " | "
              + fmt(rps * Integer.parseInt(row[2]))
              + " | "
              + ms(num(k + "p50_ms"))
              + " | "
              + ms(num(k + "p99_ms"))
              + " | "
              + get(k + "errors")
              + " |");
    }
    line("");
    line(
        "Latency of generate at a constant "
            + get("latency.target_rps")
            + " req/s (open loop, measured from "
            + "the intended send time, `ConstantRateLoad`, "
            + get("latency.connections")
            + " connections): achieved "
            + get("latency.achieved_rps")
            + " req/s over "
            + get("latency.requests")
            + " requests, p50 "
            + ms(num("latency.p50_ms"))
            + ", p90 "
            + ms(num("latency.p90_ms"))
            + ", p99 "
            + ms(num("latency.p99_ms"))
            + ", p99.9 "
            + ms(num("latency.p999_ms"))
            + ", max "
            + ms(num("latency.max_ms"))
            + "; errors "
            + get("latency.errors")
            + ", unanswered "
            + get("latency.unanswered")
            + ".");
    line("");
    line(
        "The generate response is "
            + get("body.generate_bytes")
            + " bytes; the ceiling server answers the same number of bytes. The ceiling and"
            + " generate alternated for two rounds and each table row is the better round (ceiling:"
            + " "
            + get("wrk.ceiling.rounds")
            + " req/s; generate: "
            + get("wrk.generate.rounds")
            + " req/s; generate as % of the ceiling round by round: "
            + roundRatios()
            + ").");
    line("");
  }

  private void jmhTable() {
    line("### JMH (time per operation, one thread)");
    line("");
    line(
        "| Benchmark | Best iteration, ns/op | Mean, ns/op | ± (99.9 %) | ops/s per core (best) |");
    line("|---|---|---|---|---|");
    for (Map.Entry<String, JsonNode> e : jmh.entrySet()) {
      JsonNode metric = e.getValue().get("primaryMetric");
      double best = score(e.getKey());
      line(
          "| `"
              + e.getKey()
              + "` | "
              + fmt1(best)
              + " | "
              + fmt1(metric.get("score").asDouble())
              + " | "
              + fmt1(metric.get("scoreError").asDouble())
              + " | "
              + fmt(1e9 / best)
              + " |");
    }
    line("");
    line(
        "Limits use the best iteration: other work on the machine only ever adds time, so the"
            + " fastest iteration is the closest to the cost of the code (and makes the limits"
            + " harder to reach).");
    line("");
  }

  private void startAndMemory() {
    line("### Start-up and memory (" + get("start.buckets") + " salt buckets)");
    line("");
    line("| Start (`./veil serve`) | Launch → `/ops/readyz` 200 | Heap used after a full GC |");
    line("|---|---|---|");
    line(
        "| First (empty data dir: creates keys, the admin client and the salt system; no class data"
            + " sharing archive yet) | "
            + fmt(num("start.first_ms"))
            + " ms | "
            + fmt1(num("heap.first_mb"))
            + " MiB |");
    line(
        "| Second (same data dir; with the archive the first start wrote) | "
            + fmt(num("start.second_ms"))
            + " ms | "
            + fmt1(num("heap.second_mb"))
            + " MiB |");
    line("");
    line(
        "Opt-out index: "
            + fmt(num("optout.records"))
            + " random records in "
            + fmt(num("optout.table_bytes"))
            + " bytes of table, "
            + get("optout.bytes_per_record")
            + " bytes per record (`tableBytes()/size`); heap "
            + "retained per record after a full GC: "
            + get("optout.heap_bytes_per_record")
            + " bytes; "
            + get("optout.add_ns")
            + " ns per add. The advertising-id table of `POST /v2/optout/status`, built for the"
            + " same count: "
            + get("optout.status_bytes_per_record")
            + " bytes per record, "
            + get("optout.check_and_status_bytes_per_record")
            + " with the check's table; built in "
            + get("optout.status_build_ns_per_record")
            + " ns per record.");
  }

  private void ratioRow(String what, double measured, double reference, String detail) {
    double pct = measured / reference * 100;
    boolean known = Double.isFinite(pct) && reference > 0;
    line(
        "| "
            + what
            + " | "
            + (known ? fmt1(pct) + " % (" + detail + ")" : "n/a")
            + " | ≥ 60 % | "
            + verdict(known, pct >= 60)
            + " |");
  }

  private void maxRow(String what, double measured, double max, String unit) {
    boolean known = Double.isFinite(measured);
    line(
        "| "
            + what
            + " | "
            + (known ? fmt2(measured) + unit : "n/a")
            + " | ≤ "
            + fmt(max)
            + unit
            + " | "
            + verdict(known, measured <= max)
            + " |");
  }

  /** Generate over ceiling for each round, e.g. "52.1 % / 55.0 %". */
  private String roundRatios() {
    String[] ceiling = get("wrk.ceiling.rounds").split("/");
    String[] generate = get("wrk.generate.rounds").split("/");
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < Math.min(ceiling.length, generate.length); i++) {
      try {
        out.append(i == 0 ? "" : " / ")
            .append(
                pct(
                    Double.parseDouble(generate[i].strip()),
                    Double.parseDouble(ceiling[i].strip())));
      } catch (NumberFormatException e) {
        return "n/a";
      }
    }
    return out.toString();
  }

  private static String pct(double measured, double reference) {
    double p = measured / reference * 100;
    return Double.isFinite(p) ? fmt1(p) + " %" : "n/a";
  }

  private static String verdict(boolean known, boolean pass) {
    return !known ? "not measured" : pass ? "**pass**" : "**FAIL**";
  }

  /** The fastest measured iteration of a benchmark, in its unit (ns/op); NaN if it did not run. */
  private double score(String benchmark) {
    JsonNode run = jmh.get(benchmark);
    if (run == null) {
      return Double.NaN;
    }
    double best = Double.POSITIVE_INFINITY;
    for (JsonNode fork : run.get("primaryMetric").get("rawData")) {
      for (JsonNode iteration : fork) {
        best = Math.min(best, iteration.asDouble());
      }
    }
    return best;
  }

  private String get(String key) {
    return results.getProperty(key, "n/a").strip();
  }

  private double num(String key) {
    try {
      return Double.parseDouble(get(key));
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  private static String ms(double v) {
    return Double.isFinite(v) ? fmt2(v) + " ms" : "n/a";
  }

  private static String fmt(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%,.0f", v) : "n/a";
  }

  private static String fmt1(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%,.1f", v) : "n/a";
  }

  private static String fmt2(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%,.2f", v) : "n/a";
  }

  private void line(String s) {
    md.append(s).append('\n');
  }
}

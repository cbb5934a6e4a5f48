package dev.veil.observability;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * A small registry of metrics rendered in the Prometheus text format (version 0.0.4) by {@link
 * #scrape()}.
 *
 * <p>It holds HTTP request series ({@link #httpRequests}: a count and a latency histogram per
 * route, method and status code), counters ({@link #counter}, and {@link #counterFamily} for
 * counters told apart by labels from a small fixed set), values read at scrape time ({@link
 * #gauge}, {@link #counterOf}) and whole families written at scrape time by a collector ({@link
 * JvmMetrics}, {@link ProcessMetrics}, {@link BuildInfo}). Handles are created once and kept by the
 * caller, so recording a request costs a few {@link java.util.concurrent.atomic.LongAdder}
 * increments and no allocation once a status code has been seen.
 *
 * <p>Thread-safe: any thread may record while another scrapes; a scrape sees each series at some
 * point during the scrape (series are not read atomically with each other).
 */
public final class Metrics {
  private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

  private final Map<String, RequestMetrics> requests = new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, CounterFamily> families = new ConcurrentHashMap<>();
  private final Map<String, Gauge> gauges = new ConcurrentHashMap<>();
  private final List<Collector> collectors = new CopyOnWriteArrayList<>();

  public Metrics() {}

  /**
   * The request series of one route and method; the same handle for the same arguments.
   *
   * @param route a route template such as {@code /v1/token/generate}, never raw request input
   * @param method an HTTP method name from a fixed set
   */
  public RequestMetrics httpRequests(String route, String method) {
    return requests.computeIfAbsent(route + ' ' + method, k -> new RequestMetrics(route, method));
  }

  /**
   * Requests recorded so far, all status codes together, per route and method: keys such as {@code
   * "GET /v1/token/generate"}, sorted. For views of the node's own traffic (the console's
   * overview); scrapers read {@link #scrape()}.
   */
  public java.util.SortedMap<String, Long> requestTotals() {
    java.util.SortedMap<String, Long> totals = new java.util.TreeMap<>();
    requests.values().forEach(r -> totals.put(r.method() + " " + r.route(), r.total()));
    return totals;
  }

  /**
   * A counter named {@code name} (Prometheus convention: ending in {@code _total}); the same handle
   * for the same name.
   *
   * @throws IllegalArgumentException if the name is not a valid metric name
   */
  public Counter counter(String name, String help) {
    checkName(name);
    return counters.computeIfAbsent(name, n -> new Counter(n, help));
  }

  /**
   * A family of counters named {@code name} whose members differ by the values of {@code
   * labelNames}; the same family for the same name. Resolve each member once ({@link
   * CounterFamily#labels}) and keep it: label values must come from a small fixed set, never from
   * request input.
   *
   * @throws IllegalArgumentException if a name is not valid, or the family exists with other labels
   */
  public CounterFamily counterFamily(String name, String help, String... labelNames) {
    checkName(name);
    CounterFamily family =
        families.computeIfAbsent(name, n -> new CounterFamily(n, help, labelNames));
    if (!family.hasLabels(labelNames)) {
      throw new IllegalArgumentException("counter family " + name + " exists with other labels");
    }
    return family;
  }

  /**
   * Registers a counter whose value is read from {@code value} at every scrape (replacing any such
   * series of the same name): for a count that its owner keeps anyway. {@code value} must never
   * decrease, be cheap and thread-safe, and must not block.
   */
  public void counterOf(String name, String help, LongSupplier value) {
    checkName(name);
    gauges.put(name, new Gauge(name, help, "counter", value::getAsLong));
  }

  /**
   * Registers a gauge whose value is read from {@code value} at every scrape (replacing any gauge
   * of the same name). {@code value} must be cheap, thread-safe and must not block.
   */
  public void gauge(String name, String help, DoubleSupplier value) {
    checkName(name);
    gauges.put(name, new Gauge(name, help, "gauge", value));
  }

  /** Adds families that {@code collector} writes at every scrape, after all others. */
  void collector(Collector collector) {
    collectors.add(collector);
  }

  /** All metrics in the Prometheus text exposition format, series sorted by name and labels. */
  public String scrape() {
    StringBuilder out = new StringBuilder(4096);
    List<RequestMetrics> routes = new ArrayList<>(requests.values());
    routes.sort(Comparator.comparing(RequestMetrics::route).thenComparing(RequestMetrics::method));
    if (!routes.isEmpty()) {
      out.append(
              "# HELP veil_http_requests_total HTTP requests by route, method and status code.\n")
          .append("# TYPE veil_http_requests_total counter\n");
      routes.forEach(r -> r.writeCounts(out));
      out.append(
              "# HELP veil_http_request_duration_seconds Time from request headers to the end of"
                  + " the response.\n")
          .append("# TYPE veil_http_request_duration_seconds histogram\n");
      routes.forEach(r -> r.writeHistograms(out));
    }
    counters.values().stream()
        .sorted(Comparator.comparing(Counter::name))
        .forEach(c -> c.write(out));
    families.values().stream()
        .sorted(Comparator.comparing(CounterFamily::name))
        .forEach(f -> f.write(out));
    gauges.values().stream().sorted(Comparator.comparing(Gauge::name)).forEach(g -> g.write(out));
    collectors.forEach(c -> c.write(out));
    return out.toString();
  }

  static void checkName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("not a valid metric name: " + name);
    }
  }

  /** Writes whole metric families, HELP and TYPE lines included, when {@link #scrape()} runs. */
  @FunctionalInterface
  interface Collector {
    void write(StringBuilder out);
  }

  /** Appends a label value with the escapes the text format requires. */
  static void appendLabelValue(StringBuilder out, String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '"' -> out.append("\\\"");
        case '\n' -> out.append("\\n");
        default -> out.append(c);
      }
    }
  }

  /** {@code {name="value",…}} with the values escaped, or nothing for no labels. */
  static String labels(List<String> names, List<String> values) {
    if (names.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder().append('{');
    for (int i = 0; i < names.size(); i++) {
      out.append(i == 0 ? "" : ",").append(names.get(i)).append("=\"");
      appendLabelValue(out, values.get(i));
      out.append('"');
    }
    return out.append('}').toString();
  }

  /** One sample line: name, rendered {@link #labels}, value. */
  static void appendSample(StringBuilder out, String name, String labels, double value) {
    out.append(name).append(labels).append(' ');
    appendNumber(out, value);
    out.append('\n');
  }

  static void appendHelp(StringBuilder out, String name, String help, String type) {
    out.append("# HELP ").append(name).append(' ');
    String text = help == null ? "" : help;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        default -> out.append(c);
      }
    }
    out.append('\n').append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  static void appendNumber(StringBuilder out, double v) {
    if (v == Math.rint(v) && !Double.isInfinite(v) && Math.abs(v) < 1e15) {
      out.append((long) v);
    } else if (Double.isNaN(v)) {
      out.append("NaN");
    } else if (Double.isInfinite(v)) {
      out.append(v > 0 ? "+Inf" : "-Inf");
    } else if (Math.abs(v) >= 1e-6 && Math.abs(v) < 1e15) {
      out.append(java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString());
    } else {
      out.append(v);
    }
  }

  private record Gauge(String name, String help, String type, DoubleSupplier value) {
    void write(StringBuilder out) {
      appendHelp(out, name, help, type);
      out.append(name).append(' ');
      appendNumber(out, value.getAsDouble());
      out.append('\n');
    }
  }
}

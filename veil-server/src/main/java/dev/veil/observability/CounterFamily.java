package dev.veil.observability;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Counters of one name told apart by label values, such as {@code
 * veil_token_refreshes_total{outcome="expired"}}; created by {@link Metrics#counterFamily}.
 *
 * <p>{@link #labels} looks a member up (and creates it the first time), so callers on hot paths
 * resolve their members once, when they are wired, and then only increment the {@link Counter}s
 * they hold. Label values must come from a small fixed set (outcomes, method names, status codes),
 * never from request input: each distinct value is a series kept for the life of the process.
 * Thread-safe.
 */
public final class CounterFamily {
  private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  private final String name;
  private final String help;
  private final List<String> labelNames;
  private final Map<List<String>, Counter> members = new ConcurrentHashMap<>();

  CounterFamily(String name, String help, String... labelNames) {
    for (String label : labelNames) {
      if (label == null || !LABEL.matcher(label).matches() || label.startsWith("__")) {
        throw new IllegalArgumentException("not a valid label name: " + label);
      }
    }
    this.name = name;
    this.help = help;
    this.labelNames = List.of(labelNames);
  }

  /**
   * The member with these label values, one per label name in order; the same {@link Counter} for
   * the same values. Shown in scrapes (at 0) from its first look-up on.
   *
   * @throws IllegalArgumentException if the number of values differs from the number of labels
   */
  public Counter labels(String... values) {
    if (values.length != labelNames.size()) {
      throw new IllegalArgumentException(
          name + " has labels " + labelNames + ", got " + Arrays.toString(values));
    }
    List<String> key = List.of(values);
    return members.computeIfAbsent(
        key, k -> new Counter(name, help, Metrics.labels(labelNames, k)));
  }

  String name() {
    return name;
  }

  boolean hasLabels(String... names) {
    return labelNames.equals(List.of(names));
  }

  void write(StringBuilder out) {
    if (members.isEmpty()) {
      return;
    }
    Metrics.appendHelp(out, name, help, "counter");
    members.values().stream()
        .sorted(Comparator.comparing(Counter::labels))
        .forEach(c -> c.writeSample(out));
  }
}

package dev.veil.testing;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Prometheus text-format scrape (version 0.0.4), parsed and checked: every sample belongs to a
 * family declared by a {@code # TYPE} line before it, no family is declared twice, no series
 * appears twice, and every value is a number. Samples are looked up by series, written as in the
 * text: {@code name} or {@code name{label="value",…}} with the labels in the order the server
 * writes them.
 */
public final class Scrape {
  private static final Pattern TYPE =
      Pattern.compile(
          "# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)");
  private static final Pattern SAMPLE =
      Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{.*\\})? (\\S+)");

  private final Map<String, String> types = new LinkedHashMap<>();
  private final Map<String, Double> samples = new LinkedHashMap<>();
  private final Map<String, String> familyOfName = new HashMap<>();

  private Scrape() {}

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException at the first line that breaks the format or the rules above
   */
  public static Scrape parse(String text) {
    Scrape scrape = new Scrape();
    for (String line : text.split("\n")) {
      scrape.read(line);
    }
    return scrape;
  }

  private void read(String line) {
    if (line.startsWith("# HELP ") || line.isEmpty()) {
      return;
    }
    Matcher type = TYPE.matcher(line);
    if (type.matches()) {
      if (types.put(type.group(1), type.group(2)) != null) {
        throw new IllegalArgumentException("family declared twice: " + line);
      }
      return;
    }
    Matcher sample = SAMPLE.matcher(line);
    if (!sample.matches()) {
      throw new IllegalArgumentException("not a sample line: " + line);
    }
    String name = sample.group(1);
    String family = family(name);
    if (family == null) {
      throw new IllegalArgumentException("sample without a # TYPE line before it: " + line);
    }
    familyOfName.put(name, family);
    String series = name + (sample.group(2) == null ? "" : sample.group(2));
    if (samples.put(series, number(sample.group(3))) != null) {
      throw new IllegalArgumentException("series written twice: " + line);
    }
  }

  private String family(String name) {
    if (types.containsKey(name)) {
      return name;
    }
    for (String suffix : List.of("_bucket", "_count", "_sum")) {
      if (name.endsWith(suffix)) {
        String base = name.substring(0, name.length() - suffix.length());
        String type = types.get(base);
        if ("histogram".equals(type) || "summary".equals(type)) {
          return base;
        }
      }
    }
    return null;
  }

  private static double number(String text) {
    return switch (text) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(text);
    };
  }

  /** The value of {@code series}; throws if the scrape does not hold it. */
  public double value(String series) {
    Double v = samples.get(series);
    if (v == null) {
      String name = series.contains("{") ? series.substring(0, series.indexOf('{')) : series;
      throw new AssertionError(
          "no series "
              + series
              + " in the scrape; of that name it holds "
              + samples.keySet().stream()
                  .filter(s -> s.equals(name) || s.startsWith(name + "{"))
                  .toList());
    }
    return v;
  }

  /**
   * The value of {@code series}, or 0 when the scrape does not hold it (a counter not yet moved).
   */
  public double valueOrZero(String series) {
    return samples.getOrDefault(series, 0.0);
  }

  /** Every series, in the order of the text. */
  public Set<String> series() {
    return samples.keySet();
  }

  /**
   * The sample names (family names, plus {@code _bucket}, {@code _count}, {@code _sum} samples).
   */
  public Set<String> sampleNames() {
    return familyOfName.keySet();
  }

  /** The family's type ({@code counter}, {@code gauge}, …), or null if not declared. */
  public String type(String family) {
    return types.get(family);
  }
}

package dev.veil.cli.map;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The options of {@code veil map} read without picocli, for plain command lines only. Building
 * picocli's model of a command costs a JVM that has just started about 0.2 to 0.3 s of CPU, which
 * is a fifth of a million-identifier run; this reads the usual command lines in well under a
 * millisecond. Anything else (help, version, an unknown or repeated option, an option without its
 * value, a value that starts with {@code -} or {@code @}, a number that is not plain digits) is
 * left to picocli, which then gives its usual answer or message. Where both parse a command line,
 * they give the same settings ({@code MapArgumentsTest}).
 */
public final class MapArguments {
  private static final Set<String> VALUED =
      Set.of(
          "--in",
          "--out",
          "--cache",
          "--type",
          "--column",
          "--batch-size",
          "--progress",
          "--url",
          "--api-key",
          "--client-secret");
  private static final Set<String> FLAGS = Set.of("--refresh", "--hash-locally");

  /** What the command line says: the server options and the command's settings. */
  public record Parsed(ServerOptions server, MapRun.Settings settings) {}

  private MapArguments() {}

  /**
   * The options of {@code args} (the words after {@code map}), or null when picocli should read
   * them.
   */
  public static Parsed parse(List<String> args) {
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      int eq = arg.indexOf('=');
      String name = eq > 0 ? arg.substring(0, eq) : arg;
      String value;
      if (FLAGS.contains(arg)) {
        value = "true";
      } else if (!VALUED.contains(name)) {
        return null;
      } else if (eq > 0) {
        value = arg.substring(eq + 1);
      } else if (i + 1 < args.size()) {
        value = args.get(++i);
      } else {
        return null;
      }
      if (value.isEmpty()
          || value.startsWith("-")
          || value.startsWith("@")
          || values.put(name, value) != null) {
        return null;
      }
    }
    String batchSize = values.getOrDefault("--batch-size", "5000");
    if (!Numbers.isDigits(batchSize, 9)) {
      return null;
    }
    try {
      MapRun.Settings settings =
          new MapRun.Settings(
              path(values.get("--in")),
              path(values.get("--out")),
              path(values.get("--cache")),
              values.containsKey("--refresh"),
              values.get("--type"),
              values.get("--column"),
              values.containsKey("--hash-locally"),
              Integer.parseInt(batchSize),
              values.getOrDefault("--progress", "auto"),
              values.get("--client-secret"));
      return new Parsed(ServerOptions.of(values.get("--url"), values.get("--api-key")), settings);
    } catch (InvalidPathException e) {
      return null; // picocli reports it
    }
  }

  private static Path path(String value) {
    return value == null ? null : Path.of(value);
  }
}

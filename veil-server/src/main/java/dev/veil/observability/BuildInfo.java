package dev.veil.observability;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;

/**
 * {@code veil_build_info{version=…,java_version=…,profile=…} 1}: which build runs on which Java,
 * with which API profile, so a dashboard can tell nodes of a rolling upgrade apart. The version is
 * the Maven project version, written into {@code build.properties} by the build.
 */
public final class BuildInfo {
  static final String RESOURCE = "build.properties";
  private static final List<String> LABELS = List.of("version", "java_version", "profile");

  private BuildInfo() {}

  /**
   * The version of this build, such as {@code 0.1.0}, or {@code unknown} if the build wrote none.
   */
  public static String version() {
    try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return "unknown";
      }
      Properties properties = new Properties();
      properties.load(in);
      String version = properties.getProperty("version", "").strip();
      return version.isEmpty() || version.startsWith("${") ? "unknown" : version;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }

  /**
   * Adds {@code veil_build_info} to every scrape of {@code metrics}; {@code profile} is the API
   * profile's name.
   */
  public static void register(Metrics metrics, String profile) {
    String labels =
        Metrics.labels(
            LABELS, List.of(version(), System.getProperty("java.version", "unknown"), profile));
    metrics.collector(
        out -> {
          Metrics.appendHelp(
              out,
              "veil_build_info",
              "The running build: version, Java version and API profile.",
              "gauge");
          Metrics.appendSample(out, "veil_build_info", labels, 1);
        });
  }
}

package dev.veil.sdk.internal;

import java.net.URI;
import java.util.Objects;

/**
 * The checks of a server's base URL and an API key, as {@link dev.veil.sdk.VeilClient.Builder}
 * applies them, for the CLI's calls that send through an {@link ApiCaller} of their own.
 */
public final class Endpoint {
  private Endpoint() {}

  /**
   * The base URL as a client keeps it: without a trailing slash.
   *
   * @throws IllegalArgumentException unless it is an http or https URL with a host and no query or fragment
   */
  public static String baseUrl(String baseUrl) {
    URI uri = URI.create(Objects.requireNonNull(baseUrl, "baseUrl"));
    if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
        || uri.getHost() == null || uri.getQuery() != null || uri.getFragment() != null) {
      throw new IllegalArgumentException("baseUrl must be an http or https URL without query: " + baseUrl);
    }
    String text = uri.toString();
    return text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
  }

  /**
   * Returns {@code apiKey} (null for none).
   *
   * @throws IllegalArgumentException if it is blank or has other than printable ASCII without spaces
   */
  public static String apiKey(String apiKey) {
    if (apiKey == null) {
      return null;
    }
    // A loop, not a stream: this runs before a run's first request, and the first stream of a
    // JVM costs milliseconds of class initialization and linkage (docs/benchmarks-client.md).
    boolean printable = !apiKey.isEmpty();
    for (int i = 0; i < apiKey.length() && printable; i++) {
      char c = apiKey.charAt(i);
      printable = c > ' ' && c <= '~';
    }
    if (!printable) {
      throw new IllegalArgumentException("apiKey must be printable ASCII without spaces");
    }
    return apiKey;
  }
}

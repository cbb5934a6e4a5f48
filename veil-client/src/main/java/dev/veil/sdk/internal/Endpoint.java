package dev.veil.sdk.internal;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Objects;

/**
 * The checks of a server's base URL and an API key, as {@link dev.veil.sdk.VeilClient.Builder}
 * applies them, for the CLI's calls that send through an {@link ApiCaller} of their own.
 */
public final class Endpoint {
  private Endpoint() {}

  /**
   * The base URL as a client keeps it: scheme in lower case, without a trailing slash.
   *
   * @throws IllegalArgumentException naming what is wrong unless it is an http or https URL with a
   *     host, perhaps a port and a path, and nothing else (no user or password, query or fragment);
   *     the message never repeats a user or password
   */
  public static String baseUrl(String baseUrl) {
    String lower = Objects.requireNonNull(baseUrl, "baseUrl").toLowerCase(Locale.ROOT);
    if (!lower.startsWith("http://") && !lower.startsWith("https://")) {
      throw new IllegalArgumentException("baseUrl must start with http:// or https://");
    }
    URI uri;
    try {
      uri = new URI(baseUrl);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "baseUrl is not a URL: " + e.getReason() + " at index " + e.getIndex());
    }
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    if (uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "baseUrl must not hold a user or password (they would not be sent): give the API key with"
              + " apiKey");
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException(
          uri.getRawAuthority() == null
              ? "baseUrl must name a host"
              : "baseUrl's host "
                  + uri.getRawAuthority()
                  + " is not a host name (letters, digits, '-' and '.'), "
                  + "an IPv4 address or a bracketed IPv6 one");
    }
    if (uri.getPort() == 0 || uri.getPort() > 65_535) {
      throw new IllegalArgumentException("baseUrl's port must be 1 to 65535, not " + uri.getPort());
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new IllegalArgumentException("baseUrl must not have a query (?) or fragment (#)");
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    int end = path.length();
    while (end > 0 && path.charAt(end - 1) == '/') {
      end--;
    }
    return scheme + "://" + uri.getRawAuthority() + path.substring(0, end);
  }

  /**
   * Returns {@code apiKey} (null for none).
   *
   * @throws IllegalArgumentException if it is blank or has other than printable ASCII without
   *     spaces
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

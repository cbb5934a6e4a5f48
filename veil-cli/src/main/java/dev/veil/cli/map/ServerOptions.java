package dev.veil.cli.map;

import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * Which Veil server a client command talks to and with which API key. Defaults come from the
 * environment ({@code VEIL_URL}, {@code VEIL_API_KEY}), so the key need not appear on the command
 * line (where other users of the machine could read it).
 */
public final class ServerOptions {
  static final String URL_ENV = "VEIL_URL";
  static final String KEY_ENV = "VEIL_API_KEY";
  static final String DEFAULT_URL = "http://127.0.0.1:8080";

  /** Where a client command finds the client's secret when no option gives it. */
  public static final String SECRET_ENV = "VEIL_CLIENT_SECRET";

  @Option(
      names = "--url",
      paramLabel = "URL",
      description = "Server base URL (default: $" + URL_ENV + ", else " + DEFAULT_URL + ").")
  String url;

  @Option(
      names = "--api-key",
      paramLabel = "KEY",
      description = "API key (default: $" + KEY_ENV + ").")
  String apiKey;

  /** Options as given on the command line: each null when not given. */
  static ServerOptions of(String url, String apiKey) {
    ServerOptions options = new ServerOptions();
    options.url = url;
    options.apiKey = apiKey;
    return options;
  }

  /**
   * The {@code --url} and {@code --api-key} given (null when not given), for comparisons in tests.
   */
  public List<String> given() {
    return Arrays.asList(url, apiKey);
  }

  /** The base URL from the option, the environment or the default. */
  public String url() {
    if (url != null) {
      return url;
    }
    String env = System.getenv(URL_ENV);
    return env == null || env.isBlank() ? DEFAULT_URL : env.strip();
  }

  /**
   * The client library's complaint about a base URL or key ({@code baseUrl must start with ...}),
   * in the words of this command line: {@code --url}, {@code --api-key}.
   */
  public static String inOptionTerms(IllegalArgumentException e) {
    return String.valueOf(e.getMessage())
        .replace("baseUrl", "--url")
        .replace("apiKey", "--api-key");
  }

  /**
   * What a client command says when {@link #apiKey} is null: how to give a key with {@code role}.
   */
  public static String missingKey(String role) {
    return "no API key: give --api-key KEY or set "
        + KEY_ENV
        + " (a key with the "
        + role
        + " role)";
  }

  /** The API key from the option or the environment, or null. */
  public String apiKey() {
    if (apiKey != null) {
      return apiKey;
    }
    String env = System.getenv(KEY_ENV);
    return env == null || env.isBlank() ? null : env.strip();
  }

  /** The client's secret from the environment ({@value #SECRET_ENV}), or null. */
  public static String clientSecret() {
    String env = System.getenv(SECRET_ENV);
    return env == null || env.isBlank() ? null : env.strip();
  }
}

package dev.veil.webhook;

import dev.veil.common.VeilException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Where a webhook's requests go: an absolute {@code http} or {@code https} URL, optionally a
 * template. Following UID2's opt-out webhooks, the query may hold the placeholders {@value
 * #IDENTITY} (replaced by the advertising id, standard base64, percent-encoded) and {@value
 * #TIMESTAMP} (the opt-out time, decimal epoch seconds), so the receiver chooses its parameter
 * names ({@code https://dsp.example/optout?user=%%identity%%&t=%%timestamp%%}). A URL with neither
 * placeholder gets {@code identity=<id>&timestamp=<seconds>} appended to its query.
 *
 * <p>Refused, with a message that names the rule and never repeats the URL: blank, longer than
 * {@value #MAX_LENGTH} characters, white space or control characters, not an absolute URL, another
 * scheme, no host, user info (a password would be listed with the URL), a fragment, a placeholder
 * outside the query. Immutable.
 */
public final class WebhookUrl {
  /** Placeholder for the advertising id. */
  public static final String IDENTITY = "%%identity%%";

  /** Placeholder for the opt-out time in epoch seconds. */
  public static final String TIMESTAMP = "%%timestamp%%";

  /** Longest URL accepted, in characters. */
  public static final int MAX_LENGTH = 2048;

  private final String text;
  private final boolean template;

  private WebhookUrl(String text, boolean template) {
    this.text = text;
    this.template = template;
  }

  /**
   * Checks {@code text} as described above.
   *
   * @throws VeilException {@code CLIENT_ERROR} naming the broken rule
   */
  public static WebhookUrl parse(String text) {
    if (text == null || text.isBlank()) {
      throw refused("url is required");
    }
    if (text.length() > MAX_LENGTH) {
      throw refused("url must have at most " + MAX_LENGTH + " characters");
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c <= ' ' || c == 0x7f || Character.isWhitespace(c) || Character.isISOControl(c)) {
        throw refused("url must not contain white space or control characters");
      }
    }
    boolean template = text.contains(IDENTITY) || text.contains(TIMESTAMP);
    URI uri;
    try {
      uri = new URI(text.replace(IDENTITY, "i").replace(TIMESTAMP, "0"));
    } catch (URISyntaxException e) {
      throw refused("url is not a valid URL");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw refused("url must be an absolute http or https URL");
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw refused("url must name a host");
    }
    if (uri.getRawUserInfo() != null) {
      throw refused("url must not contain user info");
    }
    if (uri.getRawFragment() != null) {
      throw refused("url must not contain a fragment");
    }
    int query = text.indexOf('?');
    int firstPlaceholder = firstPlaceholder(text);
    if (firstPlaceholder >= 0 && (query < 0 || firstPlaceholder < query)) {
      throw refused("url placeholders may only appear in the query");
    }
    return new WebhookUrl(text, template);
  }

  private static int firstPlaceholder(String text) {
    int i = text.indexOf(IDENTITY);
    int t = text.indexOf(TIMESTAMP);
    return i < 0 ? t : t < 0 ? i : Math.min(i, t);
  }

  private static VeilException refused(String message) {
    return VeilException.clientError(message);
  }

  /** The URL of the request for one opt-out. */
  public URI render(String advertisingIdBase64, long optedOutEpochSeconds) {
    String id = URLEncoder.encode(advertisingIdBase64, StandardCharsets.UTF_8);
    String seconds = Long.toString(optedOutEpochSeconds);
    String rendered;
    if (template) {
      rendered = text.replace(IDENTITY, id).replace(TIMESTAMP, seconds);
    } else {
      String separator = text.indexOf('?') < 0 ? "?" : text.endsWith("?") ? "" : "&";
      rendered = text + separator + "identity=" + id + "&timestamp=" + seconds;
    }
    return URI.create(rendered);
  }

  /** The request target of a rendered URL as it goes on the request line: path and query. */
  public static String requestTarget(URI rendered) {
    String path =
        rendered.getRawPath() == null || rendered.getRawPath().isEmpty()
            ? "/"
            : rendered.getRawPath();
    return rendered.getRawQuery() == null ? path : path + '?' + rendered.getRawQuery();
  }

  /** The URL as registered. */
  public String text() {
    return text;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof WebhookUrl u && u.text.equals(text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  /** The scheme and host only: a URL's path or query may carry a receiver's token. */
  @Override
  public String toString() {
    URI uri = URI.create(text.replace(IDENTITY, "i").replace(TIMESTAMP, "0"));
    return "WebhookUrl[" + uri.getScheme() + "://" + uri.getHost() + "]";
  }
}

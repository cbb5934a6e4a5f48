package dev.veil.demo;

import dev.veil.http.SdkScript;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The demo site's files (classpath {@code /demo/}) and its Content Security Policy. The page is
 * static except for one value, the Veil API's origin, which it reads from a {@code meta} element (a
 * CSP with {@code script-src 'self'} forbids inline scripts, so there is no inline configuration).
 * Immutable.
 */
final class DemoPages {
  /** The {@code source} of the Veil id in a bid request's {@code user.ext.eids}. */
  static final String EID_SOURCE = "veil";

  private static final String BASE_URL_PLACEHOLDER = "{{veil-base-url}}";
  private static final Pattern HOST_NAME =
      Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?");

  /** A file served as is. */
  record Asset(String contentType, Buffer content) {
    Buffer bytes() {
      return content.copy();
    }
  }

  private final String indexTemplate;
  private final Map<String, Asset> assets;

  DemoPages(SdkScript sdk) {
    this.indexTemplate = new String(read("/demo/index.html"), StandardCharsets.UTF_8);
    if (!indexTemplate.contains(BASE_URL_PLACEHOLDER)) {
      throw new IllegalStateException("/demo/index.html lacks " + BASE_URL_PLACEHOLDER);
    }
    this.assets =
        Map.of(
            "/demo.js", new Asset(SdkScript.CONTENT_TYPE, Buffer.buffer(read("/demo/demo.js"))),
            "/demo.css",
                new Asset("text/css; charset=utf-8", Buffer.buffer(read("/demo/demo.css"))),
            "/veil-sdk.js", new Asset(SdkScript.CONTENT_TYPE, Buffer.buffer(sdk.bytes())),
            // The page links the SVG; /favicon.ico is where tools and older browsers look without a
            // link.
            "/favicon.svg", new Asset("image/svg+xml", Buffer.buffer(read("/demo/favicon.svg"))),
            "/favicon.ico", new Asset("image/svg+xml", Buffer.buffer(read("/demo/favicon.svg"))));
  }

  /** The file at {@code path}, or null. */
  Asset asset(String path) {
    return assets.get(path);
  }

  /** The page, telling the SDK where the Veil API is. */
  Buffer index(String apiOrigin) {
    return Buffer.buffer(indexTemplate.replace(BASE_URL_PLACEHOLDER, apiOrigin));
  }

  /**
   * The Veil API's origin as the browser must address it: the host name the browser used for this
   * site (so the demo works from another machine when the API listens beyond loopback) with the
   * API's port; {@code 127.0.0.1} when the request named no plain host name. The result is only
   * letters, digits, dots, dashes and colons, so it is safe in HTML and in the CSP.
   */
  String apiOrigin(String requestHost, int apiPort) {
    String host =
        requestHost != null && HOST_NAME.matcher(requestHost).matches() ? requestHost : "127.0.0.1";
    return "http://" + host + ":" + apiPort;
  }

  /**
   * Scripts only from this site (no inline script, no eval), Trusted Types required (no string
   * reaches an HTML or script sink), network calls only to this site and the Veil API.
   */
  static String contentSecurityPolicy(String apiOrigin) {
    return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src"
        + " 'self' "
        + apiOrigin
        + "; form-action 'self'; base-uri 'none'; frame-ancestors 'none'; "
        + "require-trusted-types-for 'script'";
  }

  private static byte[] read(String resource) {
    try (InputStream in = DemoPages.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("resource " + resource + " is missing from the classpath");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource, e);
    }
  }
}

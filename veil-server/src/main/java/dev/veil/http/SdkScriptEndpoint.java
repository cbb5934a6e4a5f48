package dev.veil.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;

/**
 * Serves the browser SDK (docs/spec.md 7.1): {@code /static/veil-sdk.js}, cached for five minutes
 * and revalidated by ETag, so pages pick up a new release within minutes; and {@code
 * /static/veil-sdk-<version>.js}, cached for a year as immutable, for pages that pin a release
 * (with a Subresource Integrity hash if they like: the answer allows any origin to read it). Both
 * carry {@code nosniff}, so a browser runs them only as JavaScript. No key needed.
 */
final class SdkScriptEndpoint {
  static final String PATH = "/static/veil-sdk.js";
  static final String SHORT_CACHE = "public, max-age=300";
  static final String IMMUTABLE_CACHE = "public, max-age=31536000, immutable";

  private final SdkScript script;
  private final Buffer body;

  SdkScriptEndpoint(SdkScript script) {
    this.script = script;
    this.body = Buffer.buffer(script.bytes());
  }

  /** The path of this release's file, e.g. {@code /static/veil-sdk-0.2.0.js}. */
  String versionedPath() {
    return "/static/veil-sdk-" + script.version() + ".js";
  }

  void latest(Exchange ex) {
    serve(ex, SHORT_CACHE);
  }

  void versioned(Exchange ex) {
    serve(ex, IMMUTABLE_CACHE);
  }

  private void serve(Exchange ex, String cacheControl) {
    HttpServerResponse response = ex.response();
    response
        .putHeader(HttpHeaders.CACHE_CONTROL, cacheControl)
        .putHeader(HttpHeaders.ETAG, script.etag())
        .putHeader("X-Content-Type-Options", "nosniff")
        .putHeader(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN, "*")
        .putHeader("Cross-Origin-Resource-Policy", "cross-origin");
    if (script.matches(ex.request().getHeader(HttpHeaders.IF_NONE_MATCH))) {
      ex.sendEmpty(304);
    } else {
      ex.send(200, SdkScript.CONTENT_TYPE, body.copy());
    }
  }
}

package dev.veil.http;

import dev.veil.common.ErrorCode;
import dev.veil.observability.Metrics;
import dev.veil.observability.Readiness;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Operations endpoints (docs/spec.md 1.9): liveness, readiness, Prometheus metrics and the OpenAPI
 * document. None needs a key.
 */
final class OpsEndpoints {
  static final String OPENAPI_RESOURCE = "/openapi.yaml";

  private final Vertx vertx;
  private final Readiness readiness;
  private final Metrics metrics;
  private final Buffer openApi;

  OpsEndpoints(Vertx vertx, Readiness readiness, Metrics metrics) {
    this.vertx = vertx;
    this.readiness = readiness;
    this.metrics = metrics;
    this.openApi = loadOpenApi();
  }

  /** Always {@code {"status":"success","body":"alive"}} while the event loop answers. */
  void healthz(Exchange ex) {
    ex.success(json -> json.writeString("alive"), 48);
  }

  /**
   * 200 {@code "ready"}, or 503 {@code unknown} with the reason (loading, no active key, shutting
   * down).
   */
  void readyz(Exchange ex) {
    String reason = readiness.notReadyReason();
    if (reason == null) {
      ex.success(json -> json.writeString("ready"), 48);
    } else {
      ErrorResponses.send(ex, ErrorCode.UNAVAILABLE, "Not ready: " + reason);
    }
  }

  /**
   * The scrape runs on a worker thread: it reads {@code /proc} and the state of every thread (a few
   * hundred microseconds), which the requests on this event loop need not wait for.
   */
  void metrics(Exchange ex) {
    vertx
        .executeBlocking(metrics::scrape, false)
        .onComplete(
            done -> {
              if (done.succeeded()) {
                ex.send(
                    200, "text/plain; version=0.0.4; charset=utf-8", Buffer.buffer(done.result()));
              } else {
                ex.fail(done.cause());
              }
            });
  }

  void openApi(Exchange ex) {
    ex.send(200, "application/yaml; charset=utf-8", openApi.copy());
  }

  private static Buffer loadOpenApi() {
    try (InputStream in = OpsEndpoints.class.getResourceAsStream(OPENAPI_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            "resource " + OPENAPI_RESOURCE + " is missing from the classpath");
      }
      return Buffer.buffer(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + OPENAPI_RESOURCE, e);
    }
  }
}

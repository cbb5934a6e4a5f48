package dev.veil.http;

import dev.veil.client.ApiClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sees every finished request once: records it in the route's metrics, tells its connection that
 * the answer ended (from then on the next request is awaited, see {@link ListenerConnections}) and,
 * when enabled, writes one access-log line. The line holds method, path (never the query string,
 * where tokens and PII may travel), status, duration and the client id; nothing else from the
 * request.
 */
final class RequestObserver {
  private static final Logger ACCESS = LoggerFactory.getLogger("dev.veil.http.access");

  private final boolean accessLog;

  RequestObserver(boolean accessLog) {
    this.accessLog = accessLog;
  }

  void completed(Exchange ex, int status) {
    long nanos = ex.elapsedNanos();
    ex.metrics().record(status, nanos);
    ex.connection().answered(ex.startNanos() + nanos);
    if (accessLog && ACCESS.isInfoEnabled()) {
      ApiClient client = ex.client();
      ACCESS.info(
          "event=request method={} path={} status={} duration_us={} client={}",
          ex.request().method().name(),
          ex.routeName(),
          status,
          nanos / 1000,
          client == null ? "-" : client.id());
    }
  }
}

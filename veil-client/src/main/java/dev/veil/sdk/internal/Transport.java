package dev.veil.sdk.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Optional;

/**
 * One HTTP exchange with a Veil server, without retries or envelope handling: the seam between the
 * client's logic and the network. {@link HttpTransport} is the real one; tests pass fakes.
 * Implementations must be thread-safe.
 */
public interface Transport {
  /**
   * Sends {@code request} and returns the answer with its body still unread.
   *
   * @throws IOException when no answer arrived (connection refused or reset, timeout)
   * @throws InterruptedException when the calling thread was interrupted while waiting
   */
  Response send(Request request) throws IOException, InterruptedException;

  /**
   * The transport for {@code baseUrl}: the client's own connections ({@link SocketTransport}) when
   * no HTTP client is given and the server is reached directly; otherwise the JDK's client, the one
   * given or a default one ({@link HttpTransport}), which honours proxies.
   *
   * @param httpClient a JDK client to use, or null
   */
  static Transport forUrl(
      String baseUrl, HttpClient httpClient, Duration connectTimeout, Duration requestTimeout) {
    if (httpClient == null && SocketTransport.reachesDirectly(baseUrl)) {
      return new SocketTransport(baseUrl, connectTimeout, requestTimeout);
    }
    return new HttpTransport(
        httpClient != null ? httpClient : HttpTransport.defaultClient(connectTimeout),
        baseUrl,
        requestTimeout);
  }

  /**
   * A request: {@code GET} when {@code jsonBody} is null, else {@code POST} of that JSON.
   *
   * @param pathAndQuery e.g. {@code /v1/identity/buckets?since_timestamp=1767225600}
   * @param jsonBody UTF-8 JSON, or null
   * @param apiKey sent as {@code Authorization: Bearer <key>}, or null for none
   */
  @SuppressWarnings("ArrayRecordComponent") // its arrays are never compared
  record Request(String pathAndQuery, byte[] jsonBody, String apiKey) {
    public String method() {
      return jsonBody == null ? "GET" : "POST";
    }

    /** Shows method and path only: bodies carry PII and the key is a secret. */
    @Override
    public String toString() {
      int query = pathAndQuery.indexOf('?');
      return method() + " " + (query < 0 ? pathAndQuery : pathAndQuery.substring(0, query));
    }
  }

  /** An answer whose body the receiver must read or close. */
  interface Response extends AutoCloseable {
    int status();

    /** The first value of a header (name case-insensitive), if present. */
    Optional<String> header(String name);

    /** The body; read it once. */
    InputStream body();

    /** Closes the body. */
    @Override
    void close() throws IOException;
  }
}

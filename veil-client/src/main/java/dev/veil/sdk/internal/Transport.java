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
   * A request: {@code GET} when {@code body} is null, else {@code POST} of that body.
   *
   * @param pathAndQuery e.g. {@code /v1/identity/buckets?since_timestamp=1767225600}
   * @param body the body (UTF-8 JSON, or a v2 envelope), or null
   * @param contentType the body's media type ({@link #JSON} or {@link #BINARY}); null for {@code
   *     GET}
   * @param apiKey sent as {@code Authorization: Bearer <key>}, or null for none
   */
  @SuppressWarnings("ArrayRecordComponent") // its arrays are never compared
  record Request(String pathAndQuery, byte[] body, String contentType, String apiKey) {
    /** A body of JSON, or of a v2 envelope's base64 text. */
    static final String JSON = "application/json";

    /** A body of a v2 envelope's raw bytes (as UID2's SDK sends {@code /v3/identity/map}). */
    static final String BINARY = "application/octet-stream";

    /** A {@code GET} when {@code jsonBody} is null, else a {@code POST} of that {@link #JSON}. */
    public Request(String pathAndQuery, byte[] jsonBody, String apiKey) {
      this(pathAndQuery, jsonBody, jsonBody == null ? null : JSON, apiKey);
    }

    public String method() {
      return body == null ? "GET" : "POST";
    }

    /** The media types the answer may have: a refusal is JSON whatever the request's type. */
    String accept() {
      return BINARY.equals(contentType) ? BINARY + ", " + JSON : JSON;
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

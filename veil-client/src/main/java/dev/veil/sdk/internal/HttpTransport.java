package dev.veil.sdk.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * {@link Transport} over the JDK's {@link HttpClient}, HTTP/1.1 (the server speaks it; an h2c
 * upgrade would cost a round trip for nothing). The request timeout bounds the wait for the
 * answer's headers; a body is then read as it streams in.
 */
public final class HttpTransport implements Transport {
  private static final String USER_AGENT = "veil-java/0.1.0";

  private final HttpClient http;
  private final String baseUrl;
  private final Duration requestTimeout;

  /**
   * @param http the client to send with (shared, thread-safe)
   * @param baseUrl scheme, host, port and optional path prefix, without a trailing slash
   * @param requestTimeout how long to wait for an answer's headers
   */
  public HttpTransport(HttpClient http, String baseUrl, Duration requestTimeout) {
    this.http = http;
    this.baseUrl = baseUrl;
    this.requestTimeout = requestTimeout;
  }

  /** A JDK client for HTTP/1.1 with the given connect timeout. */
  public static HttpClient defaultClient(Duration connectTimeout) {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(connectTimeout)
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  @Override
  public Response send(Request request) throws IOException, InterruptedException {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create(baseUrl + request.pathAndQuery()))
            .timeout(requestTimeout)
            .header("Accept", request.accept())
            .header("User-Agent", USER_AGENT);
    if (request.apiKey() != null) {
      builder.header("Authorization", "Bearer " + request.apiKey());
    }
    if (request.body() == null) {
      builder.GET();
    } else {
      builder
          .header("Content-Type", request.contentType())
          .POST(HttpRequest.BodyPublishers.ofByteArray(request.body()));
    }
    HttpResponse<InputStream> answer =
        http.send(builder.build(), HttpResponse.BodyHandlers.ofInputStream());
    return new JdkResponse(answer);
  }

  private static final class JdkResponse implements Response {
    private final HttpResponse<InputStream> answer;

    JdkResponse(HttpResponse<InputStream> answer) {
      this.answer = answer;
    }

    @Override
    public int status() {
      return answer.statusCode();
    }

    @Override
    public Optional<String> header(String name) {
      return answer.headers().firstValue(name);
    }

    @Override
    public InputStream body() {
      return answer.body();
    }

    @Override
    public void close() throws IOException {
      answer.body().close();
    }
  }
}

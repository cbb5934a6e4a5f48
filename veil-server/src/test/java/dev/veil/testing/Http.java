package dev.veil.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A small HTTP client for tests that talk to a server over a real socket: an optional API key sent
 * as a bearer token, JSON bodies as strings, answers parsed on demand. I/O failures are thrown
 * unchecked. For bytes the JDK client will not send, see {@code dev.veil.http.testing.RawHttp}.
 */
public final class Http {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private final HttpClient client;
  private final String base;

  /**
   * A client for {@code base} (such as {@code http://127.0.0.1:8080}) that lets the JDK pick the
   * protocol.
   */
  public Http(String base) {
    this(base, HttpClient.Version.HTTP_2);
  }

  /**
   * A client for {@code base} that prefers {@code version} (HTTP/2 falls back to 1.1 if the server
   * declines).
   */
  public Http(String base, HttpClient.Version version) {
    this.base = base;
    this.client =
        HttpClient.newBuilder().version(version).connectTimeout(Duration.ofSeconds(5)).build();
  }

  public URI uri(String pathAndQuery) {
    return URI.create(base + pathAndQuery);
  }

  /** GET with an optional API key (null sends no Authorization header). */
  public Response get(String pathAndQuery, String apiKey) {
    return send(withKey(HttpRequest.newBuilder(uri(pathAndQuery)).GET(), apiKey));
  }

  /** POST of a JSON text with an optional API key. */
  public Response post(String path, String apiKey, String json) {
    return send(
        withKey(
            HttpRequest.newBuilder(uri(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)),
            apiKey));
  }

  /**
   * The server's own answers for {@code identifiers} of one kind ({@code email}, {@code phone},
   * ...) by {@code POST /v1/identity/map} in bodies of 5,000: identifier -> {advertising_id,
   * bucket_id}, for the mapped ones.
   */
  public Map<String, String[]> identityMap(String apiKey, String kind, List<String> identifiers) {
    Map<String, String[]> answers = new HashMap<>();
    for (int i = 0; i < identifiers.size(); i += 5000) {
      List<String> batch = identifiers.subList(i, Math.min(identifiers.size(), i + 5000));
      String body;
      try {
        body = JSON.writeValueAsString(Map.of(kind, batch));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (JsonNode m : post("/v1/identity/map", apiKey, body).successBody().path("mapped")) {
        answers.put(
            m.get("identifier").asText(),
            new String[] {m.get("advertising_id").asText(), m.get("bucket_id").asText()});
      }
    }
    return answers;
  }

  private static HttpRequest withKey(HttpRequest.Builder request, String apiKey) {
    if (apiKey != null) {
      request.header("Authorization", bearer(apiKey));
    }
    return request.timeout(REQUEST_TIMEOUT).build();
  }

  public Response send(HttpRequest request) {
    try {
      HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
      return new Response(response.statusCode(), response.headers(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** {@code Bearer <key>}. */
  public static String bearer(String apiKey) {
    return "Bearer " + apiKey;
  }

  /** {@code value} encoded for a query string. */
  public static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + json, e);
    }
  }

  /** An HTTP answer with its body parsed on demand. */
  public record Response(int code, HttpHeaders headers, String body) {
    public JsonNode json() {
      return parse(body);
    }

    /** The envelope's {@code status} word. */
    public String status() {
      return json().path("status").asText(null);
    }

    public String message() {
      return json().path("message").asText(null);
    }

    public JsonNode bodyNode() {
      return json().path("body");
    }

    /** The envelope's body, after asserting that this is a 200 {@code success} answer. */
    public JsonNode successBody() {
      assertThat(code).as(body).isEqualTo(200);
      assertThat(status()).as(body).isEqualTo("success");
      return bodyNode();
    }

    public String header(String name) {
      return headers.firstValue(name).orElse(null);
    }
  }
}

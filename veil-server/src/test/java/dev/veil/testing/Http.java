package dev.veil.testing;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A small HTTP client for black-box tests: real sockets, JSON bodies as strings. */
public final class Http {
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;

  public Http(String base) {
    this.base = base;
  }

  public record Response(int status, String body) {}

  public Response get(String pathAndQuery, String apiKey) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + pathAndQuery)).timeout(Duration.ofSeconds(30));
    if (apiKey != null) {
      b.header("Authorization", "Bearer " + apiKey);
    }
    HttpResponse<String> r = client.send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
    return new Response(r.statusCode(), r.body());
  }

  public Response post(String path, String json, String apiKey) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json");
    if (apiKey != null) {
      b.header("Authorization", "Bearer " + apiKey);
    }
    HttpResponse<String> r = client.send(b.POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
    return new Response(r.statusCode(), r.body());
  }

  public static String q(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}

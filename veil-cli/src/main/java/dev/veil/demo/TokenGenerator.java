package dev.veil.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;

/**
 * The demo publisher's server side talking to Veil like any publisher's server would: {@code POST
 * /v1/token/generate} over HTTP with its own API key, the email in the JSON body (not in a URL).
 * Non-blocking; thread-safe.
 */
final class TokenGenerator {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long TIMEOUT_MS = 10_000;

  /** What generate answered, reduced to what the demo page needs. */
  sealed interface Outcome {
    /** The body of a successful generate: the identity to hand to {@code __veil.init}. */
    record Generated(JsonNode identity) implements Outcome {}

    /** The user opted out: no token. */
    record OptedOut() implements Outcome {}

    /** Veil refused the input (not an email). */
    record Refused(String message) implements Outcome {}

    /** Veil did not answer as expected. */
    record Failed(String reason) implements Outcome {}
  }

  private final HttpClient client;
  private final String host;
  private final int port;
  private final String authorization;

  TokenGenerator(Vertx vertx, String host, int port, String apiKey) {
    this.client = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(5_000));
    this.host = host;
    this.port = port;
    this.authorization = "Bearer " + apiKey;
  }

  Future<Outcome> generate(String email) {
    ObjectNode body = JSON.createObjectNode().put("email", email);
    RequestOptions request =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setHost(host)
            .setPort(port)
            .setURI("/v1/token/generate")
            .setIdleTimeout(TIMEOUT_MS)
            .putHeader(HttpHeaders.AUTHORIZATION, authorization)
            .putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
    return client
        .request(request)
        .compose(req -> req.send(Buffer.buffer(body.toString())))
        .compose(response -> response.body().map(answer -> outcome(response.statusCode(), answer)))
        .otherwise(failure -> new Outcome.Failed(failure.getClass().getSimpleName()));
  }

  static Outcome outcome(int httpStatus, Buffer answer) {
    JsonNode json;
    try {
      json = JSON.readTree(answer.getBytes());
    } catch (IOException e) {
      return new Outcome.Failed("HTTP " + httpStatus + ", not JSON");
    }
    String status = json.path("status").asText("");
    if (httpStatus == 200 && status.equals("success") && json.path("body").isObject()) {
      return new Outcome.Generated(json.get("body"));
    }
    if (httpStatus == 200 && status.equals("optout")) {
      return new Outcome.OptedOut();
    }
    if (httpStatus == 400 && (status.equals("clienterror") || status.equals("client_error"))) {
      return new Outcome.Refused(json.path("message").asText(""));
    }
    return new Outcome.Failed("HTTP " + httpStatus + " " + status);
  }

  Future<Void> close() {
    return client.close();
  }
}

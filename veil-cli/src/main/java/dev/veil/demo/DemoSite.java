package dev.veil.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.veil.client.ClientService;
import dev.veil.http.SdkScript;
import dev.veil.sdk.DecryptionResult;
import dev.veil.sdk.TokenDecryptor;
import dev.veil.sdk.VeilClient;
import dev.veil.server.Demo;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * The demo publisher site of {@code veil serve --demo}: a news page on its own port (a publisher's
 * origin, not Veil's) where a user logs in with an email. The site's server side calls generate
 * with its own API key ({@link TokenGenerator}, key from {@link DemoAccount}; the key never reaches
 * the browser), the page hands the identity to the browser SDK, shows the advertising token and
 * sends it to a pretend bidder, which decrypts it with the Java client's {@link TokenDecryptor} and
 * its own ID_READER key, as a real bidder would, and logs out with {@code __veil.disconnect()}.
 *
 * <p>Paths: {@code GET /} (the page), {@code /demo.js}, {@code /demo.css}, {@code /veil-sdk.js}
 * (the SDK, self-hosted as a publisher using the npm package would), {@code POST /login} ({@code
 * {"email"}} → {@code {"identity"}} | {@code {"optout":true}} | {@code {"error"}}) and {@code POST
 * /bid} (the bidder: finds the token in an OpenRTB-style bid request, decrypts it and answers what
 * it read: advertising id, site, identity type and times, or why it could not). {@code
 * /favicon.svg} and {@code /favicon.ico} are the site's icon. Every answer carries a strict Content
 * Security Policy ({@link DemoPages#contentSecurityPolicy}).
 */
public final class DemoSite implements Demo {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_BODY_BYTES = 16 * 1024;
  private static final int MAX_EMAIL_LENGTH = 320;

  private final HttpServer server;
  private final TokenGenerator generator;
  private final TokenDecryptor bidder;
  private final DemoPages pages;
  private final int apiPort;

  private DemoSite(
      Vertx vertx, TokenGenerator generator, TokenDecryptor bidder, DemoPages pages, int apiPort) {
    this.generator = generator;
    this.bidder = bidder;
    this.pages = pages;
    this.apiPort = apiPort;
    this.server = vertx.createHttpServer(new HttpServerOptions()).requestHandler(this::handle);
  }

  /**
   * Prepares the demo's API clients (blocking store writes) and the bidder's keys (a blocking call
   * to the API, which must be serving), then listens on {@code host}:{@code port}. {@code
   * apiHost}:{@code apiPort} is where the site's server side reaches the Veil API.
   */
  public static Future<DemoSite> start(
      Vertx vertx, ClientService clients, String host, int port, String apiHost, int apiPort) {
    String apiKey = DemoAccount.apiKey(clients);
    TokenDecryptor bidder =
        VeilClient.builder()
            .baseUrl("http://" + apiHost + ":" + apiPort)
            .apiKey(DemoAccount.bidderKey(clients))
            .build()
            .tokenDecryptor()
            .build();
    bidder.start();
    DemoSite site =
        new DemoSite(
            vertx,
            new TokenGenerator(vertx, apiHost, apiPort, apiKey),
            bidder,
            new DemoPages(SdkScript.load()),
            apiPort);
    return site.server.listen(port, host).map(s -> site).onFailure(e -> bidder.close());
  }

  @Override
  public int port() {
    return server.actualPort();
  }

  @Override
  public Future<Void> stop() {
    return server
        .shutdown(5, TimeUnit.SECONDS)
        .compose(v -> generator.close())
        .onComplete(v -> bidder.close());
  }

  private void handle(HttpServerRequest request) {
    HttpServerResponse response = request.response();
    String apiOrigin =
        pages.apiOrigin(request.authority() == null ? null : request.authority().host(), apiPort);
    response
        .putHeader("Content-Security-Policy", DemoPages.contentSecurityPolicy(apiOrigin))
        .putHeader("X-Content-Type-Options", "nosniff")
        .putHeader("Referrer-Policy", "no-referrer");
    String path = request.path();
    HttpMethod method = request.method();
    DemoPages.Asset asset = HttpMethod.GET.equals(method) ? pages.asset(path) : null;
    if (HttpMethod.GET.equals(method) && path.equals("/")) {
      send(response, 200, "text/html; charset=utf-8", pages.index(apiOrigin), "no-store");
    } else if (asset != null) {
      send(response, 200, asset.contentType(), asset.bytes(), "no-cache");
    } else if (HttpMethod.POST.equals(method) && path.equals("/login")) {
      readJson(request, this::login);
    } else if (HttpMethod.POST.equals(method) && path.equals("/bid")) {
      readJson(request, this::bid);
    } else {
      sendJson(response, 404, error("Not found"));
    }
  }

  /** Server side of the login form: generate with the demo's key; the page gets the identity. */
  private void login(HttpServerRequest request, JsonNode body) {
    String email = body.path("email").asText("").strip();
    if (email.isEmpty() || email.length() > MAX_EMAIL_LENGTH) {
      sendJson(request.response(), 400, error("Enter an email address."));
      return;
    }
    generator
        .generate(email)
        .onComplete(
            done -> {
              TokenGenerator.Outcome outcome = done.result();
              HttpServerResponse response = request.response();
              if (outcome instanceof TokenGenerator.Outcome.Generated g) {
                sendJson(response, 200, JSON.createObjectNode().set("identity", g.identity()));
              } else if (outcome instanceof TokenGenerator.Outcome.OptedOut) {
                sendJson(response, 200, JSON.createObjectNode().put("optout", true));
              } else if (outcome instanceof TokenGenerator.Outcome.Refused) {
                sendJson(response, 400, error("That is not a valid email address."));
              } else {
                String reason = ((TokenGenerator.Outcome.Failed) outcome).reason();
                sendJson(
                    response,
                    502,
                    error("The token service did not answer as expected (" + reason + ")."));
              }
            });
  }

  /**
   * The pretend bidder: finds the Veil token in the bid request, decrypts it and says what it read.
   */
  private void bid(HttpServerRequest request, JsonNode bidRequest) {
    String token = null;
    for (JsonNode eid : bidRequest.path("user").path("ext").path("eids")) {
      if (eid.path("source").asText("").equals(DemoPages.EID_SOURCE)) {
        token = eid.path("uids").path(0).path("id").asText(null);
      }
    }
    if (token == null) {
      sendJson(
          request.response(), 400, error("No " + DemoPages.EID_SOURCE + " id in user.ext.eids."));
      return;
    }
    DecryptionResult read = bidder.decrypt(token); // in memory: the keys were fetched beforehand
    ObjectNode answer =
        JSON.createObjectNode()
            .put("bidder", "demo-bidder")
            .put("received_token", token)
            .put("decryption", read.status().name());
    if (read.isSuccess()) {
      answer.put("bid_price_cpm", 1.25);
      answer
          .putObject("decrypted")
          .put("advertising_id", read.advertisingId())
          .put("site_id", read.siteId())
          .put("identity_type", read.identityType().name())
          .put("established", read.established().toEpochMilli())
          .put("expires", read.expires().toEpochMilli());
    } else {
      answer.put("reason", read.reason());
    }
    sendJson(request.response(), 200, answer);
  }

  private interface JsonHandler {
    void handle(HttpServerRequest request, JsonNode body);
  }

  private static void readJson(HttpServerRequest request, JsonHandler then) {
    Buffer body = Buffer.buffer();
    boolean[] tooLarge = {false};
    request.handler(
        chunk -> {
          if (!tooLarge[0] && body.length() + chunk.length() > MAX_BODY_BYTES) {
            tooLarge[0] = true;
            request.response().putHeader(HttpHeaders.CONNECTION, "close");
            sendJson(request.response(), 413, error("Request body too large."));
          } else if (!tooLarge[0]) {
            body.appendBuffer(chunk);
          }
        });
    request.endHandler(
        v -> {
          if (tooLarge[0]) {
            return;
          }
          JsonNode json;
          try {
            json = JSON.readTree(body.getBytes());
          } catch (IOException e) {
            json = null;
          }
          if (json == null || !json.isObject()) {
            sendJson(request.response(), 400, error("Expected a JSON object."));
          } else {
            then.handle(request, json);
          }
        });
  }

  private static ObjectNode error(String message) {
    return JSON.createObjectNode().put("error", message);
  }

  private static void sendJson(HttpServerResponse response, int status, JsonNode body) {
    send(
        response,
        status,
        "application/json; charset=utf-8",
        Buffer.buffer(body.toString()),
        "no-store");
  }

  private static void send(
      HttpServerResponse response,
      int status,
      String contentType,
      Buffer body,
      String cacheControl) {
    if (response.ended() || response.closed()) {
      return;
    }
    response
        .setStatusCode(status)
        .putHeader(HttpHeaders.CONTENT_TYPE, contentType)
        .putHeader(HttpHeaders.CACHE_CONTROL, cacheControl)
        .end(body);
  }
}

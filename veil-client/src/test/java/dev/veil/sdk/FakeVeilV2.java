package dev.veil.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.OpenedEnvelope;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.core.token.EncryptionKey;
import dev.veil.sdk.internal.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The v2 API in front of a {@link FakeVeil}: opens each request envelope under the client's secret
 * (checking its time against the fake's clock), hands the v1 equivalent to the fake, and seals its
 * 200 answers as a Veil server does; other answers pass through as plain JSON. The bidder key
 * answer is built here, from the fake's keys (without site ids) and the limits and site names the
 * test sets.
 */
final class FakeVeilV2 implements Transport {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final NonceSource IVS = new SecureRandom()::nextBytes;

  final FakeVeil v1;
  final String secretBase64;
  private final EnvelopeSecret secret;

  /** The v2 requests, as sent. */
  final List<Request> requests = new CopyOnWriteArrayList<>();

  /** The payloads of the opened request envelopes, in order. */
  final List<byte[]> openedPayloads = new CopyOnWriteArrayList<>();

  /** The bidder key answer's limits; null leaves the member out. */
  volatile Long maxBidstreamLifetimeSeconds = 3 * 86_400L;

  volatile Long allowClockSkewSeconds = 1_800L;

  /** The answer's {@code site_data}; null leaves it out. */
  volatile Map<Integer, List<String>> siteData = Map.of();

  /** When set, every 200 answer is sealed under this secret instead of the client's. */
  volatile EnvelopeSecret sealWith;

  FakeVeilV2(FakeVeil v1) {
    this.v1 = v1;
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    this.secretBase64 = Base64.getEncoder().encodeToString(bytes);
    this.secret = EnvelopeSecret.fromBase64(secretBase64);
  }

  VeilClient.Builder client() {
    return v1.client().transport(this).envelopeClock(v1.clock).clientSecret(secretBase64);
  }

  /** The response key the fake derives for a refresh token (standard base64 of 32 bytes). */
  static String responseKeyOf(String refreshToken) {
    return FakeVeil.sha256Base64("response key of " + refreshToken);
  }

  @Override
  public Response send(Request request) throws IOException {
    if (!request.pathAndQuery().startsWith("/v2/")) {
      return v1.send(request);
    }
    requests.add(request);
    return switch (request.pathAndQuery()) {
      case "/v2/token/generate" -> generate(request);
      case "/v2/token/refresh" -> refresh(request);
      case "/v2/key/bidstream" -> keys(request);
      default -> v1.send(request);
    };
  }

  private OpenedEnvelope open(Request request) {
    OpenedEnvelope opened =
        V2Envelope.BASE64.openRequest(
            request.body(), secret, v1.clock.instant(), Duration.ofMinutes(2));
    openedPayloads.add(opened.payloadBytes());
    return opened;
  }

  private Response generate(Request request) throws IOException {
    OpenedEnvelope opened = open(request);
    ObjectNode body = (ObjectNode) JSON.readTree(opened.payloadBytes());
    if (body.path("optout_check").asInt() != 1) {
      return FakeVeil.answer(
          400, "{\"status\":\"client_error\",\"message\":\"no optout_check\"}", Optional.empty());
    }
    body.remove("optout_check");
    Response v1Answer =
        v1.send(new Request("/v1/token/generate", JSON.writeValueAsBytes(body), request.apiKey()));
    if (v1Answer.status() != 200) {
      return v1Answer;
    }
    byte[] sealed =
        V2Envelope.BASE64.sealResponse(
            withResponseKey(v1Answer), opened.nonce(), sealer(), v1.clock.instant(), IVS);
    return FakeVeil.answer(200, new String(sealed, StandardCharsets.US_ASCII), Optional.empty());
  }

  private Response refresh(Request request) throws IOException {
    String token = new String(request.body(), StandardCharsets.US_ASCII);
    byte[] v1Body = JSON.writeValueAsBytes(JSON.createObjectNode().put("refresh_token", token));
    Response v1Answer = v1.send(new Request("/v1/token/refresh", v1Body, request.apiKey()));
    if (v1Answer.status() != 200) {
      return v1Answer;
    }
    EnvelopeSecret key =
        sealWith != null ? sealWith : EnvelopeSecret.fromBase64(responseKeyOf(token));
    byte[] sealed = V2Envelope.BASE64.sealRefreshAnswer(withResponseKey(v1Answer), key, IVS);
    return FakeVeil.answer(200, new String(sealed, StandardCharsets.US_ASCII), Optional.empty());
  }

  private Response keys(Request request) throws IOException {
    Object scripted = v1.script.poll();
    if (scripted instanceof IOException e) {
      throw e;
    }
    if (scripted instanceof Integer status) {
      return FakeVeil.answer(
          status, "{\"status\":\"unknown\",\"message\":\"scripted\"}", Optional.empty());
    }
    OpenedEnvelope opened = open(request);
    ObjectNode body = JSON.createObjectNode();
    if (maxBidstreamLifetimeSeconds != null) {
      body.put("max_bidstream_lifetime_seconds", maxBidstreamLifetimeSeconds);
    }
    body.put("identity_scope", "UID2");
    if (allowClockSkewSeconds != null) {
      body.put("allow_clock_skew_seconds", allowClockSkewSeconds);
    }
    ArrayNode keys = body.putArray("keys");
    for (EncryptionKey k : v1.keys) {
      keys.addObject()
          .put("id", k.id())
          .put("created", k.created().getEpochSecond())
          .put("activates", k.activates().getEpochSecond())
          .put("expires", k.expires().getEpochSecond())
          .put("secret", Base64.getEncoder().encodeToString(k.secret()));
    }
    if (siteData != null) {
      ArrayNode sites = body.putArray("site_data");
      siteData.forEach(
          (id, names) -> {
            ArrayNode domains = sites.addObject().put("id", id).putArray("domain_names");
            names.forEach(domains::add);
          });
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.set("body", body);
    answer.put("status", "success");
    byte[] sealed =
        V2Envelope.BASE64.sealResponse(
            JSON.writeValueAsBytes(answer), opened.nonce(), sealer(), v1.clock.instant(), IVS);
    return FakeVeil.answer(200, new String(sealed, StandardCharsets.US_ASCII), Optional.empty());
  }

  /** The v1 answer with the new refresh token's response key added to a success's body. */
  private static byte[] withResponseKey(Response v1Answer) throws IOException {
    JsonNode answer = JSON.readTree(v1Answer.body());
    if (answer.path("body") instanceof ObjectNode body) {
      body.put("refresh_response_key", responseKeyOf(body.path("refresh_token").asText()));
    }
    return JSON.writeValueAsBytes(answer);
  }

  private EnvelopeSecret sealer() {
    return sealWith != null ? sealWith : secret;
  }
}

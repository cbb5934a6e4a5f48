package dev.veil.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.core.identity.InvalidIdentifierException;
import dev.veil.core.token.EncryptionKey;
import dev.veil.sdk.internal.Transport;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

/**
 * A fake Veil server behind the {@link Transport} seam: maps identities deterministically into a
 * few buckets whose salts the test rotates, lists rotated buckets, serves keys and scripted
 * failures. Not a copy of the server: just enough of its contract for the client's unit tests.
 */
final class FakeVeil implements Transport {
  private static final ObjectMapper JSON = new ObjectMapper();

  final List<Request> requests = new CopyOnWriteArrayList<>();

  /**
   * Answers to give before any real handling: an IOException to throw or an int status to answer.
   */
  final Deque<Object> script = new ArrayDeque<>();

  final TestClock clock;
  final int bucketCount;
  private final int[] generation;
  private final long[] lastUpdatedMs;
  private final Set<String> optedOutHashes = new HashSet<>();
  volatile List<EncryptionKey> keys = List.of();

  /**
   * When set, a map request fails with an IOException once this many map requests have been
   * answered.
   */
  volatile int failMapAfter = -1;

  private int mapRequests;

  FakeVeil(TestClock clock, int bucketCount) {
    this.clock = clock;
    this.bucketCount = bucketCount;
    this.generation = new int[bucketCount];
    this.lastUpdatedMs = new long[bucketCount];
    long created = clock.instant().truncatedTo(ChronoUnit.SECONDS).toEpochMilli();
    java.util.Arrays.fill(lastUpdatedMs, created);
  }

  VeilClient.Builder client() {
    return VeilClient.builder()
        .baseUrl("http://fake.test")
        .apiKey("test-key")
        .transport(this)
        .sleeper(d -> {})
        .random(() -> 0);
  }

  // --- the identity space ---

  int bucketOf(Identifier id) {
    byte[] h = IdentityHash.parse(id.kind(), id.value()).toBytes();
    return Math.floorMod(
        (h[0] << 24) | ((h[1] & 0xFF) << 16) | ((h[2] & 0xFF) << 8) | (h[3] & 0xFF), bucketCount);
  }

  static String bucketId(int index) {
    return "bucket-" + index;
  }

  String advertisingIdOf(Identifier id) {
    String hash = IdentityHash.parse(id.kind(), id.value()).toBase64();
    return sha256Base64(hash + "/" + generation[bucketOf(id)]);
  }

  /** Rotates buckets now; they take effect at the next whole second, like the server. */
  synchronized void rotate(int... buckets) {
    Instant now = clock.instant();
    Instant effective =
        now.equals(now.truncatedTo(ChronoUnit.SECONDS))
            ? now
            : now.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
    for (int b : buckets) {
      generation[b]++;
      lastUpdatedMs[b] = effective.toEpochMilli();
    }
  }

  synchronized void optOut(Identifier id) {
    optedOutHashes.add(IdentityHash.parse(id.kind(), id.value()).toBase64());
  }

  synchronized int mapRequestCount() {
    return mapRequests;
  }

  // --- HTTP ---

  @Override
  public synchronized Response send(Request request) throws IOException {
    requests.add(request);
    Object scripted = script.poll();
    if (scripted instanceof IOException e) {
      throw e;
    }
    if (scripted instanceof Integer status) {
      return answer(
          status,
          "{\"status\":\"unknown\",\"message\":\"scripted " + status + "\"}",
          status == 429 ? Optional.of("1") : Optional.empty());
    }
    String path = request.pathAndQuery();
    if (path.equals("/v1/identity/map")) {
      if (failMapAfter >= 0 && mapRequests >= failMapAfter) {
        throw new IOException("connection reset (fake)");
      }
      mapRequests++;
      return ok(map(JSON.readTree(request.body())));
    }
    if (path.startsWith("/v1/identity/buckets?since_timestamp=")) {
      return ok(buckets(Long.parseLong(path.substring(path.indexOf('=') + 1))));
    }
    if (path.equals("/v1/key/latest")) {
      return ok(keys());
    }
    if (path.equals("/v1/token/generate")) {
      return generate(JSON.readTree(request.body()));
    }
    if (path.equals("/v1/token/refresh")) {
      return refresh(
          JSON.readTree(request.body()).get("refresh_token").asText(), request.apiKey() != null);
    }
    return answer(
        404, "{\"status\":\"unknown_path\",\"message\":\"Unknown path\"}", Optional.empty());
  }

  private JsonNode map(JsonNode body) {
    String field = body.fieldNames().next();
    IdentityInput kind = IdentityInput.fromParameterName(field);
    ObjectNode result = JSON.createObjectNode();
    ArrayNode mapped = result.putArray("mapped");
    ArrayNode unmapped = JSON.createArrayNode();
    for (JsonNode v : body.get(field)) {
      Identifier id = Identifier.of(kind, v.asText());
      String hash;
      try {
        hash = IdentityHash.parse(kind, id.value()).toBase64();
      } catch (InvalidIdentifierException e) {
        unmapped.addObject().put("identifier", id.value()).put("reason", "invalid identifier");
        continue;
      }
      if (optedOutHashes.contains(hash)) {
        unmapped.addObject().put("identifier", id.value()).put("reason", "optout");
        continue;
      }
      mapped
          .addObject()
          .put("identifier", id.value())
          .put("advertising_id", advertisingIdOf(id))
          .put("bucket_id", bucketId(bucketOf(id)));
    }
    if (!unmapped.isEmpty()) {
      result.set("unmapped", unmapped);
    }
    return result;
  }

  private Response generate(JsonNode body) throws IOException {
    String field = body.fieldNames().next();
    Identifier id = Identifier.of(IdentityInput.fromParameterName(field), body.get(field).asText());
    if (!id.isValid()) {
      return answer(
          400, "{\"status\":\"clienterror\",\"message\":\"Invalid Identifier\"}", Optional.empty());
    }
    if (optedOutHashes.contains(IdentityHash.parse(id.kind(), id.value()).toBase64())) {
      return answer(200, "{\"status\":\"optout\"}", Optional.empty());
    }
    return ok(tokens("refresh-of-" + field));
  }

  private Response refresh(String token, boolean withKey) throws IOException {
    return switch (token) {
      case "optout" -> answer(200, "{\"status\":\"optout\"}", Optional.empty());
      case "expired" ->
          withKey
              ? answer(
                  400,
                  "{\"status\":\"expired_token\",\"message\":\"Expired Token presented\"}",
                  Optional.empty())
              : answer(
                  400,
                  "{\"status\":\"error\",\"message\":\"Error refreshing token\"}",
                  Optional.empty());
      case "garbage" ->
          withKey
              ? answer(
                  400,
                  "{\"status\":\"invalid_token\",\"message\":\"Invalid Token presented garbage\"}",
                  Optional.empty())
              : answer(
                  400,
                  "{\"status\":\"error\",\"message\":\"Error refreshing token\"}",
                  Optional.empty());
      default -> ok(tokens("next-" + token));
    };
  }

  private JsonNode tokens(String refreshToken) {
    long now = clock.instant().toEpochMilli();
    return JSON.createObjectNode()
        .put("advertising_token", "adv-" + refreshToken)
        .put("refresh_token", refreshToken)
        .put("identity_expires", now + 72 * 3_600_000L)
        .put("refresh_from", now + 3_600_000L)
        .put("refresh_expires", now + 30 * 86_400_000L)
        .put("extra", "ignored");
  }

  private JsonNode buckets(long sinceSeconds) {
    ArrayNode out = JSON.createArrayNode();
    IntStream.range(0, bucketCount)
        .filter(b -> lastUpdatedMs[b] > sinceSeconds * 1000)
        .boxed()
        .sorted(Comparator.comparingLong(b -> lastUpdatedMs[b]))
        .forEach(
            b ->
                out.addObject()
                    .put("bucket_id", bucketId(b))
                    .put(
                        "last_updated",
                        LocalDateTime.ofInstant(
                                Instant.ofEpochMilli(lastUpdatedMs[b]), ZoneOffset.UTC)
                            .toString()));
    return out;
  }

  private JsonNode keys() {
    ArrayNode out = JSON.createArrayNode();
    for (EncryptionKey k : keys) {
      out.addObject()
          .put("id", k.id())
          .put("site_id", k.siteId())
          .put("created", k.created().getEpochSecond())
          .put("activates", k.activates().getEpochSecond())
          .put("expires", k.expires().getEpochSecond())
          .put("secret", Base64.getEncoder().encodeToString(k.secret()));
    }
    return out;
  }

  // --- answers ---

  static Response ok(JsonNode body) throws IOException {
    ObjectNode envelope = JSON.createObjectNode().put("status", "success");
    envelope.set("body", body);
    return answer(200, JSON.writeValueAsString(envelope), Optional.empty());
  }

  static Response answer(int status, String body, Optional<String> retryAfter) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return new Response() {
      private final InputStream in = new ByteArrayInputStream(bytes);

      @Override
      public int status() {
        return status;
      }

      @Override
      public Optional<String> header(String name) {
        return name.equalsIgnoreCase("Retry-After") ? retryAfter : Optional.empty();
      }

      @Override
      public InputStream body() {
        return in;
      }

      @Override
      public void close() {}
    };
  }

  static String sha256Base64(String text) {
    try {
      return Base64.getEncoder()
          .encodeToString(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Values of the identifiers sent in every map request so far, request by request. */
  List<List<String>> mapBatches() throws IOException {
    List<List<String>> batches = new ArrayList<>();
    for (Request r : requests) {
      if (r.pathAndQuery().equals("/v1/identity/map") && r.body() != null) {
        JsonNode body = JSON.readTree(r.body());
        List<String> values = new ArrayList<>();
        body.elements().next().forEach(v -> values.add(v.asText()));
        batches.add(values);
      }
    }
    return batches;
  }
}

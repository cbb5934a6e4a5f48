package dev.veil.uid2;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.http.testing.TestNode;
import dev.veil.server.ServiceGraph;
import dev.veil.server.Services;
import dev.veil.testing.Http.Response;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v2/optout/status} over real HTTP in UID2's v2 envelope: exactly the opted-out
 * identities' current advertising ids are listed, with their opt-out time, also after a salt
 * rotation and for an opt-out taken by another node on the same store; bad input is a 400, a client
 * without a DSP, data-provider or sharer role a 401. The node speaks the uid2 profile, whose {@code
 * /v1/identity/map} maps opted-out identities too, so the test can learn their ids.
 */
class OptOutStatusV2IT {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TestNode node;
  private String optOutKey;
  private String mapperKey;
  private CreatedClient reader;

  @BeforeEach
  void start() {
    node = TestNode.start();
    optOutKey = node.newApiKey(Role.OPTOUT);
    mapperKey = node.newApiKey(Role.MAPPER);
    reader = node.newClient(Role.ID_READER);
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void status_listsExactlyTheOptedOutIds_withTheirOptOutTime() throws IOException {
    Map<String, String> ids =
        advertisingIds("gone-1@example.com", "stays@example.com", "gone-2@example.com");
    long firstAt = optOut("gone-1@example.com");
    node.clock().advance(Duration.ofMinutes(3));
    long secondAt = optOut("gone-2@example.com");
    String unknown = Base64.getEncoder().encodeToString(new byte[32]);

    JsonNode answer =
        status(
            reader,
            List.of(
                ids.get("stays@example.com"),
                ids.get("gone-2@example.com"),
                unknown,
                ids.get("gone-1@example.com")));

    assertThat(answer.size()).isEqualTo(1);
    JsonNode listed = answer.path("opted_out");
    assertThat(listed).hasSize(2);
    assertThat(listed.get(0).path("advertising_id").asText())
        .isEqualTo(ids.get("gone-2@example.com"));
    assertThat(listed.get(0).path("opted_out_since").asLong()).isEqualTo(secondAt);
    assertThat(listed.get(1).path("advertising_id").asText())
        .isEqualTo(ids.get("gone-1@example.com"));
    assertThat(listed.get(1).path("opted_out_since").asLong()).isEqualTo(firstAt);
  }

  @Test
  void status_answersEachRoleUid2Allows_withAnEmptyListWhenNoneOptedOut() throws IOException {
    List<String> ids = List.copyOf(advertisingIds("here@example.com").values());

    for (Role role : List.of(Role.MAPPER, Role.SHARER, Role.ID_READER)) {
      JsonNode answer = status(node.newClient(role), ids);

      assertThat(answer.path("opted_out").isArray()).as(role.name()).isTrue();
      assertThat(answer.path("opted_out")).as(role.name()).isEmpty();
    }
  }

  @Test
  void status_afterTheBucketRotates_listsTheNewId_andNoLongerTheOldOne() throws IOException {
    String before = advertisingIds("rotated@example.com").get("rotated@example.com");
    long at = optOut("rotated@example.com");

    node.clock().advance(Duration.ofDays(1));
    node.services().salts().rotateFraction(1.0);
    String after =
        Base64.getEncoder()
            .encodeToString(
                node.services()
                    .mapper()
                    .map(IdentityHash.parse(IdentityInput.EMAIL, "rotated@example.com"))
                    .advertisingId());
    assertThat(after).isNotEqualTo(before);

    JsonNode listed = status(reader, List.of(before, after)).path("opted_out");

    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).path("advertising_id").asText()).isEqualTo(after);
    assertThat(listed.get(0).path("opted_out_since").asLong()).isEqualTo(at);
  }

  @Test
  void status_listsAnOptOutTakenByAnotherNode_onceThisNodeHasCaughtUp() throws IOException {
    String id = advertisingIds("elsewhere@example.com").get("elsewhere@example.com");
    assertThat(status(reader, List.of(id)).path("opted_out")).isEmpty(); // index built
    Services other =
        ServiceGraph.build(node.services().config(), node.clock(), node.store()).services();
    other.salts().catchUp();
    long at =
        other
            .optOuts()
            .record(
                other
                    .mapper()
                    .firstLevelHash(
                        IdentityHash.parse(IdentityInput.EMAIL, "elsewhere@example.com")))
            .toEpochMilli();

    // Until this node catches up it does not know of the opt-out: it reports nothing wrong.
    assertThat(status(reader, List.of(id)).path("opted_out")).isEmpty();
    // What the background sync does every sync interval (docs/spec.md 4: within 5 seconds).
    node.services().optOuts().catchUp();

    JsonNode listed = status(reader, List.of(id)).path("opted_out");
    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).path("opted_out_since").asLong()).isEqualTo(at);
  }

  @Test
  void status_withBadInput_isA400ClientError_withTheReason() {
    String good = Base64.getEncoder().encodeToString(new byte[32]);
    List<String> tooMany = new ArrayList<>();
    for (int i = 0; i < 5_001; i++) {
      tooMany.add("\"" + good + "\"");
    }
    Map<String, String> cases = new LinkedHashMap<>();
    cases.put("{}", "Required parameter is missing: advertising_ids");
    cases.put("{\"advertising_ids\":\"" + good + "\"}", "advertising_ids must be an array");
    cases.put("{\"advertising_ids\":[1]}", "advertising_ids must be an array");
    cases.put("{\"advertising_ids\":[\"not base64!\"]}", "advertising_ids[0] is not");
    cases.put("{\"advertising_ids\":[\"" + good + "\",\"AAAA\"]}", "advertising_ids[1] is not");
    cases.put("{\"advertising_ids\":[" + String.join(",", tooMany) + "]}", "at most 5000");
    cases.put("[]", "must be a JSON object");
    cases.put("{\"advertising_ids\":[", "Malformed JSON body");

    cases.forEach(
        (body, message) -> {
          Response r = send(reader, body);
          assertThat(r.code()).as(body).isEqualTo(400);
          assertThat(r.status()).as(body).isEqualTo("client_error");
          assertThat(r.message()).as(body).contains(message);
        });
  }

  @Test
  void status_withoutAnAllowedRole_isRefused() {
    for (Role role : List.of(Role.GENERATOR, Role.OPTOUT)) {
      Response r = send(node.newClient(role), "{\"advertising_ids\":[]}");

      assertThat(r.code()).as(role.name()).isEqualTo(401);
      assertThat(r.status()).as(role.name()).isEqualTo("unauthorized");
    }
  }

  private long optOut(String email) {
    return node.post("/v1/optout", optOutKey, "{\"email\":\"" + email + "\"}")
        .successBody()
        .path("opted_out_at")
        .asLong();
  }

  /** Email -> current advertising id, from {@code POST /v1/identity/map}. */
  private Map<String, String> advertisingIds(String... emails) {
    Map<String, String> ids = new LinkedHashMap<>();
    for (String email : emails) {
      JsonNode mapped =
          node.post("/v1/identity/map", mapperKey, "{\"email\":[\"" + email + "\"]}")
              .successBody()
              .path("mapped");
      assertThat(mapped).as(email).hasSize(1);
      ids.put(email, mapped.get(0).path("advertising_id").asText());
    }
    return ids;
  }

  /** The opened body of a 200 answer to {@code ids}. */
  private JsonNode status(CreatedClient client, List<String> ids) throws IOException {
    EnvelopeSecret key = client.client().secret().envelopeKey();
    long nonce = 0x0102_0304_0506_0708L;
    Response r = send(client, JSON.writeValueAsString(Map.of("advertising_ids", ids)), nonce);
    assertThat(r.code()).as(r.body()).isEqualTo(200);
    JsonNode opened =
        JSON.readTree(
            V2Envelope.BASE64
                .openResponse(r.body().getBytes(StandardCharsets.US_ASCII), key, nonce)
                .payloadBytes());
    assertThat(opened.path("status").asText()).isEqualTo("success");
    return opened.path("body");
  }

  private Response send(CreatedClient client, String json) {
    return send(client, json, 42);
  }

  private Response send(CreatedClient client, String json, long nonce) {
    byte[] sealed =
        V2Envelope.BASE64.sealRequest(
            json.getBytes(StandardCharsets.UTF_8),
            nonce,
            client.client().secret().envelopeKey(),
            node.clock().instant(),
            NonceSource.secure());
    return node.post(
        "/v2/optout/status", client.key().reveal(), new String(sealed, StandardCharsets.US_ASCII));
  }
}

package dev.veil.http;

import static dev.veil.testing.Http.encode;
import static dev.veil.testing.InMemoryStores.Call.writesTo;
import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.Role;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.CapturedLogs;
import dev.veil.testing.Http.Response;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.InMemoryStores.Part;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OptOutIT {
  private TestNode node;
  private String optOut;

  @BeforeEach
  void start() {
    node = TestNode.start();
    optOut = node.newApiKey(Role.OPTOUT);
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void optout_recordsTheIdentityAndAnswersTheTime() {
    Response r = node.post("/v1/optout", optOut, "{\"email\":\"Leaving@Example.com\"}");

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(
        "{\"status\":\"success\",\"body\":{\"opted_out_at\":" + node.clock().millis() + "}}");
    assertThat(node.services().optOuts().size()).isEqualTo(1);
  }

  @Test
  void optout_takesEffectOnEveryEndpoint() {
    String generator = node.newApiKey(Role.GENERATOR);
    String mapper = node.newApiKey(Role.MAPPER);
    String refreshToken = node.get("/v1/token/generate?phone=%2B14155550100", generator)
        .bodyNode().path("refresh_token").asText();

    node.post("/v1/optout", optOut, "{\"phone_hash\":\"" + TestNode.sha256Base64("+14155550100") + "\"}");

    assertThat(node.get("/v1/token/generate?phone=%2B14155550100", generator).status()).isEqualTo("optout");
    assertThat(node.get("/v1/token/refresh?refresh_token=" + encode(refreshToken), null).status())
        .isEqualTo("optout");
    assertThat(node.get("/v1/identity/map?phone=%2B14155550100", mapper).status()).isEqualTo("optout");
    assertThat(node.post("/v1/identity/map", mapper, "{\"phone\":[\"+14155550100\"]}").bodyNode()
        .path("unmapped").get(0).path("reason").asText()).isEqualTo("optout");
  }

  @Test
  void optout_isIdempotentAndKeepsTheFirstTime() {
    long first = node.post("/v1/optout", optOut, "{\"email\":\"a@example.com\"}").bodyNode()
        .path("opted_out_at").asLong();
    node.clock().advance(Duration.ofHours(5));

    long second = node.post("/v1/optout", optOut, "{\"email\":\"A@example.com\"}").bodyNode()
        .path("opted_out_at").asLong();

    assertThat(second).isEqualTo(first);
    assertThat(node.services().optOuts().size()).isEqualTo(1);
  }

  @Test
  void optout_withoutOptoutRole_isUnauthorized() {
    Response r = node.post("/v1/optout", node.newApiKey(Role.GENERATOR, Role.MAPPER), "{\"email\":\"a@example.com\"}");

    assertThat(r.code()).isEqualTo(401);
    assertThat(node.services().optOuts().size()).isZero();
  }

  @Test
  void optout_withGet_isMethodNotAllowed() {
    Response r = node.get("/v1/optout?email=a%40example.com", optOut);

    assertThat(r.code()).isEqualTo(405);
    assertThat(r.header("Allow")).isEqualTo("POST");
  }

  @Test
  void optout_withoutOrWithInvalidIdentity_returnsClientError() {
    assertThat(node.post("/v1/optout", optOut, "{}").message()).startsWith("Required Parameter Missing");
    assertThat(node.post("/v1/optout", optOut, "{\"email\":\"nope\"}").message()).isEqualTo("Invalid Identifier");
    assertThat(node.post("/v1/optout", optOut, "{\"email\":[\"a@b.com\"]}").message())
        .isEqualTo("Invalid parameter: email must be a string");
  }

  @Test
  void optout_whenTheStoreIsDown_returns503AndRecordsNothing() {
    node.store().failCalls(writesTo(Part.OPT_OUTS));

    Response r = node.post("/v1/optout", optOut, "{\"email\":\"a@example.com\"}");

    assertThat(r.code()).isEqualTo(503);
    assertThat(r.status()).isEqualTo("unknown");
    assertThat(r.body()).doesNotContain("a@example.com");
    assertThat(node.services().optOuts().size()).isZero();
  }

  @Test
  void optout_whenTheStoreRefuses_logsWhyItSaid_withoutTheIdentity() {
    try (CapturedLogs logs = CapturedLogs.of(ErrorResponses.class)) {
      node.store().failCalls(writesTo(Part.OPT_OUTS));

      assertThat(node.post("/v1/optout", optOut, "{\"email\":\"a@example.com\"}").code()).isEqualTo(503);

      assertThat(logs.messages()).singleElement().satisfies(message -> assertThat(message)
          .startsWith("event=store_unavailable route=/v1/optout")
          .contains("detail=\"" + InMemoryStores.OUTAGE_MESSAGE + "\"")
          .doesNotContain("a@example.com"));
    }
  }
}

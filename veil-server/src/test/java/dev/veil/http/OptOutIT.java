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
import java.util.Map;
import java.util.concurrent.CountDownLatch;
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
    assertThat(r.body())
        .isEqualTo(
            "{\"status\":\"success\",\"body\":{\"opted_out_at\":" + node.clock().millis() + "}}");
    assertThat(node.services().optOuts().size()).isEqualTo(1);
  }

  @Test
  void optout_takesEffectOnEveryEndpoint() {
    String generator = node.newApiKey(Role.GENERATOR);
    String mapper = node.newApiKey(Role.MAPPER);
    String refreshToken =
        node.get("/v1/token/generate?phone=%2B14155550100", generator)
            .bodyNode()
            .path("refresh_token")
            .asText();

    node.post(
        "/v1/optout", optOut, "{\"phone_hash\":\"" + TestNode.sha256Base64("+14155550100") + "\"}");

    assertThat(node.get("/v1/token/generate?phone=%2B14155550100", generator).status())
        .isEqualTo("optout");
    assertThat(node.get("/v1/token/refresh?refresh_token=" + encode(refreshToken), null).status())
        .isEqualTo("optout");
    assertThat(node.get("/v1/identity/map?phone=%2B14155550100", mapper).status())
        .isEqualTo("optout");
    assertThat(
            node.post("/v1/identity/map", mapper, "{\"phone\":[\"+14155550100\"]}")
                .bodyNode()
                .path("unmapped")
                .get(0)
                .path("reason")
                .asText())
        .isEqualTo("optout");
  }

  @Test
  void optout_isIdempotentAndKeepsTheFirstTime() {
    long first =
        node.post("/v1/optout", optOut, "{\"email\":\"a@example.com\"}")
            .bodyNode()
            .path("opted_out_at")
            .asLong();
    node.clock().advance(Duration.ofHours(5));

    long second =
        node.post("/v1/optout", optOut, "{\"email\":\"A@example.com\"}")
            .bodyNode()
            .path("opted_out_at")
            .asLong();

    assertThat(second).isEqualTo(first);
    assertThat(node.services().optOuts().size()).isEqualTo(1);
  }

  @Test
  void optout_withoutOptoutRole_isUnauthorized() {
    Response r =
        node.post(
            "/v1/optout",
            node.newApiKey(Role.GENERATOR, Role.MAPPER),
            "{\"email\":\"a@example.com\"}");

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
    assertThat(node.post("/v1/optout", optOut, "{}").message())
        .startsWith("Required Parameter Missing");
    assertThat(node.post("/v1/optout", optOut, "{\"email\":\"nope\"}").message())
        .isEqualTo("Invalid Identifier");
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

  /**
   * A store write that never returns (a frozen database the store's own bounds did not catch): the
   * answer does not wait for it, 503 goes out at db.timeout, and the worker's late result changes
   * nothing on the wire.
   */
  @Test
  void optout_whoseStoreWriteHangs_isAnswered503AtDbTimeout() throws Exception {
    node.close();
    node = TestNode.start(Map.of("db.timeout", "1s"));
    optOut = node.newApiKey(Role.OPTOUT);
    CountDownLatch gate = new CountDownLatch(1);
    node.store().holdCalls(writesTo(Part.OPT_OUTS), gate, new CountDownLatch(1));
    try {
      long start = System.nanoTime();
      Response r = node.post("/v1/optout", optOut, "{\"email\":\"a@example.com\"}");
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(r.code()).isEqualTo(503);
      assertThat(r.message()).isEqualTo("Store unavailable, try again later");
      assertThat(took)
          .as("answered at db.timeout (1 s), with room for a loaded machine")
          .isLessThan(Duration.ofSeconds(4));
    } finally {
      gate.countDown();
    }
    assertThat(node.post("/v1/optout", optOut, "{\"email\":\"b@example.com\"}").code())
        .isEqualTo(200);
  }

  @Test
  void optout_whenTheStoreRefuses_logsWhyItSaid_withoutTheIdentity() {
    try (CapturedLogs logs = CapturedLogs.of(ErrorResponses.class)) {
      node.store().failCalls(writesTo(Part.OPT_OUTS));

      assertThat(node.post("/v1/optout", optOut, "{\"email\":\"a@example.com\"}").code())
          .isEqualTo(503);

      assertThat(logs.messages())
          .singleElement()
          .satisfies(
              message ->
                  assertThat(message)
                      .startsWith("event=store_unavailable route=/v1/optout")
                      .contains("detail=\"" + InMemoryStores.OUTAGE_MESSAGE + "\"")
                      .doesNotContain("a@example.com"));
    }
  }
}

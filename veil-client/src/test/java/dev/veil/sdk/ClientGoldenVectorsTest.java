package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.core.identity.IdentityInput;
import dev.veil.core.token.EncryptionKey;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * The client against golden/vectors.json from veil-core's test jar, the file the server and the
 * browser SDK are tested with too: local normalization and hashing give the same hashes, and the
 * bidder's decryptor, fed the vectors' keys through the key endpoint's JSON, reads every golden
 * token and rejects every invalid one for the same reason.
 */
class ClientGoldenVectorsTest {
  private static JsonNode vectors;
  private static TokenDecryptor decryptor;

  @BeforeAll
  static void readVectors() throws IOException {
    try (InputStream in =
        ClientGoldenVectorsTest.class.getResourceAsStream("/golden/vectors.json")) {
      vectors = new ObjectMapper().readTree(in);
    }
    TestClock clock =
        new TestClock(Instant.ofEpochMilli(vectors.get("clock").get("nowMs").asLong()));
    FakeVeil server = new FakeVeil(clock, 1);
    List<EncryptionKey> keys = new ArrayList<>();
    for (JsonNode k : vectors.get("keys")) {
      keys.add(
          new EncryptionKey(
              k.get("id").asInt(),
              k.get("siteId").asInt(),
              ms(k, "createdMs"),
              ms(k, "activatesMs"),
              ms(k, "expiresMs"),
              HexFormat.of().parseHex(k.get("secretHex").asText())));
    }
    server.keys = keys;
    decryptor = server.client().build().tokenDecryptor().clock(clock).build();
    decryptor.refreshKeys();
  }

  @TestFactory
  Stream<DynamicTest> normalization_hashedLocally_givesTheGoldenHash() {
    return cases(
        "normalization",
        c -> c.get("input").asText() + " " + c.get("raw"),
        c ->
            () -> {
              Identifier raw =
                  Identifier.of(
                      IdentityInput.fromParameterName(c.get("input").asText()),
                      c.get("raw").asText());
              if (c.get("normalized").isNull()) {
                assertThat(raw.isValid()).isFalse();
                assertThatThrownBy(raw::hashed)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("invalid " + raw.kind().parameterName());
                return;
              }
              Identifier hashed = raw.hashed();
              assertThat(hashed.value()).isEqualTo(c.get("sha256Base64").asText());
              assertThat(hashed.kind().isHash()).isTrue();
              assertThat(hashed.kind().type()).isEqualTo(raw.kind().type());
            });
  }

  @TestFactory
  Stream<DynamicTest> hashParse_acceptsExactlyTheGoldenForms() {
    return cases(
        "hashParse",
        c -> c.get("note").asText(),
        c ->
            () -> {
              Identifier id =
                  Identifier.of(
                      IdentityInput.fromParameterName(c.get("input").asText()),
                      c.get("value").asText());
              assertThat(id.isValid()).isEqualTo(c.get("valid").asBoolean());
              if (id.isValid()) {
                assertThat(id.hashed()).isSameAs(id);
              }
            });
  }

  @TestFactory
  Stream<DynamicTest> advertisingTokens_decryptToTheGoldenPayload() {
    return cases(
        "advertisingTokens",
        c -> c.get("name").asText(),
        c ->
            () -> {
              JsonNode p = c.get("payload");
              DecryptionResult r = decryptor.decrypt(c.get("token").asText());
              assertThat(r.status()).as(r.reason()).isEqualTo(DecryptionStatus.SUCCESS);
              assertThat(r.advertisingId()).isEqualTo(p.get("advertisingIdBase64").asText());
              assertThat(r.siteId()).isEqualTo(p.get("publisher").get("siteId").asInt());
              assertThat(r.identityType().name()).isEqualTo(p.get("identityType").asText());
              assertThat(r.established()).isEqualTo(ms(p, "establishedMs"));
              assertThat(r.created()).isEqualTo(ms(p, "createdMs"));
              assertThat(r.expires()).isEqualTo(ms(p, "expiresMs"));
            });
  }

  @TestFactory
  Stream<DynamicTest> invalidAdvertisingTokens_areRejectedForTheGoldenReason() {
    return cases(
        "invalidTokens",
        c -> c.get("note").asText(),
        c ->
            () -> {
              if (!c.get("format").asText().equals("advertising")) {
                return;
              }
              DecryptionResult r = decryptor.decrypt(c.get("token").asText());
              assertThat(r.status().name()).isEqualTo(c.get("reason").asText());
              assertThatThrownBy(r::advertisingId).isInstanceOf(IllegalStateException.class);
            });
  }

  private static Stream<DynamicTest> cases(
      String section, Function<JsonNode, String> name, Function<JsonNode, Executable> test) {
    return StreamSupport.stream(vectors.get(section).spliterator(), false)
        .map(c -> DynamicTest.dynamicTest(name.apply(c), test.apply(c)));
  }

  private static Instant ms(JsonNode node, String field) {
    return Instant.ofEpochMilli(node.get(field).asLong());
  }
}

package dev.veil.core.golden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.core.identity.EmailNormalizer;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.core.identity.InvalidIdentifierException;
import dev.veil.core.identity.PhoneNormalizer;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.core.token.EncryptionKey;
import dev.veil.core.token.InvalidTokenException;
import dev.veil.core.token.KeyLookup;
import dev.veil.core.token.RefreshTokenCodec;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * Checks the implementation against golden/vectors.json, the contract shared with other clients.
 */
class GoldenVectorsTest {
  private static JsonNode vectors;
  private static Map<Integer, EncryptionKey> keys;
  private static KeyLookup keyLookup;

  @BeforeAll
  static void readVectors() throws IOException {
    try (InputStream in = GoldenVectorsTest.class.getResourceAsStream("/golden/vectors.json")) {
      vectors = new ObjectMapper().readTree(in);
    }
    keys = GoldenJson.keys(vectors.get("keys"));
    keyLookup = keys::get;
  }

  @Test
  void file_describesItselfAndCoversEveryKind() {
    assertThat(vectors.get("description")).isNotEmpty();
    for (String section :
        new String[] {
          "normalization",
          "hashParse",
          "keys",
          "advertisingTokens",
          "refreshTokens",
          "invalidTokens"
        }) {
      assertThat(vectors.get(section)).as(section).isNotEmpty();
    }
  }

  @TestFactory
  Stream<DynamicTest> normalization() {
    return cases(
        "normalization",
        c -> c.get("input").asText() + " " + c.get("raw"),
        c ->
            () -> {
              IdentityInput input = IdentityInput.fromParameterName(c.get("input").asText());
              String raw = c.get("raw").asText();
              Optional<String> expected = Optional.ofNullable(c.get("normalized").textValue());
              Optional<String> actual =
                  input == IdentityInput.EMAIL
                      ? EmailNormalizer.normalize(raw)
                      : PhoneNormalizer.normalize(raw);
              assertThat(actual).isEqualTo(expected);
              if (expected.isEmpty()) {
                assertThatThrownBy(() -> IdentityHash.parse(input, raw))
                    .isInstanceOf(InvalidIdentifierException.class);
                return;
              }
              IdentityHash hash = IdentityHash.parse(input, raw);
              assertThat(hash.toBase64()).isEqualTo(c.get("sha256Base64").asText());
              IdentityInput hashed =
                  input == IdentityInput.EMAIL
                      ? IdentityInput.EMAIL_HASH
                      : IdentityInput.PHONE_HASH;
              assertThat(IdentityHash.parse(hashed, c.get("sha256Base64").asText()))
                  .isEqualTo(hash);
            });
  }

  @TestFactory
  Stream<DynamicTest> hashParse() {
    return cases(
        "hashParse",
        c -> c.get("note").asText(),
        c ->
            () -> {
              IdentityInput input = IdentityInput.fromParameterName(c.get("input").asText());
              String value = c.get("value").asText();
              if (c.get("valid").asBoolean()) {
                assertThat(IdentityHash.parse(input, value).toBase64())
                    .isEqualTo(c.get("base64").asText());
              } else {
                assertThatThrownBy(() -> IdentityHash.parse(input, value))
                    .isInstanceOf(InvalidIdentifierException.class);
              }
            });
  }

  @TestFactory
  Stream<DynamicTest> advertisingTokens_encodeToExactlyTheGoldenString() {
    return cases(
        "advertisingTokens",
        c -> c.get("name").asText(),
        c ->
            () -> {
              AdvertisingTokenCodec codec =
                  new AdvertisingTokenCodec(
                      GoldenJson.fixedIvs(
                          c.get("outerIvHex").asText(), c.get("innerIvHex").asText()));
              String token =
                  codec.encode(
                      GoldenJson.advertisingPayload(c.get("payload")),
                      keys.get(c.get("masterKeyId").asInt()),
                      keys.get(c.get("siteKeyId").asInt()));
              assertThat(token).isEqualTo(c.get("token").asText());
            });
  }

  @TestFactory
  Stream<DynamicTest> advertisingTokens_decodeToTheGoldenPayload() {
    return cases(
        "advertisingTokens",
        c -> c.get("name").asText(),
        c ->
            () -> {
              AdvertisingTokenCodec codec = new AdvertisingTokenCodec(GoldenJson.fixedIvs());
              assertThat(codec.decode(c.get("token").asText(), keyLookup))
                  .isEqualTo(GoldenJson.advertisingPayload(c.get("payload")));
            });
  }

  @TestFactory
  Stream<DynamicTest> advertisingTokens_readIndependently_matchTheLayout() {
    return cases(
        "advertisingTokens",
        c -> c.get("name").asText(),
        c ->
            () ->
                assertThat(
                        IndependentTokenReader.readAdvertising(
                            c.get("token").asText(), GoldenJson.secrets(vectors.get("keys"))))
                    .isEqualTo(GoldenJson.expectedAdvertisingFields(c)));
  }

  @TestFactory
  Stream<DynamicTest> refreshTokens_encodeToExactlyTheGoldenString() {
    return cases(
        "refreshTokens",
        c -> c.get("name").asText(),
        c ->
            () -> {
              RefreshTokenCodec codec =
                  new RefreshTokenCodec(GoldenJson.fixedIvs(c.get("ivHex").asText()));
              String token =
                  codec.encode(
                      GoldenJson.refreshPayload(c.get("payload")),
                      keys.get(c.get("refreshKeyId").asInt()));
              assertThat(token).isEqualTo(c.get("token").asText());
            });
  }

  @TestFactory
  Stream<DynamicTest> refreshTokens_decodeToTheGoldenPayload() {
    return cases(
        "refreshTokens",
        c -> c.get("name").asText(),
        c ->
            () -> {
              RefreshTokenCodec codec = new RefreshTokenCodec(GoldenJson.fixedIvs());
              assertThat(codec.decode(c.get("token").asText(), keyLookup))
                  .isEqualTo(GoldenJson.refreshPayload(c.get("payload")));
            });
  }

  @TestFactory
  Stream<DynamicTest> refreshTokens_readIndependently_matchTheLayout() {
    return cases(
        "refreshTokens",
        c -> c.get("name").asText(),
        c ->
            () ->
                assertThat(
                        IndependentTokenReader.readRefresh(
                            c.get("token").asText(), GoldenJson.secrets(vectors.get("keys"))))
                    .isEqualTo(GoldenJson.expectedRefreshFields(c)));
  }

  @TestFactory
  Stream<DynamicTest> invalidTokens_areRejectedForTheGoldenReason() {
    return cases(
        "invalidTokens",
        c -> c.get("format").asText() + ": " + c.get("note").asText(),
        c ->
            () -> {
              String token = c.get("token").asText();
              Executable decode =
                  c.get("format").asText().equals("advertising")
                      ? () ->
                          new AdvertisingTokenCodec(GoldenJson.fixedIvs()).decode(token, keyLookup)
                      : () -> new RefreshTokenCodec(GoldenJson.fixedIvs()).decode(token, keyLookup);
              assertThatThrownBy(decode::execute)
                  .isInstanceOfSatisfying(
                      InvalidTokenException.class,
                      e -> assertThat(e.reason().name()).isEqualTo(c.get("reason").asText()));
            });
  }

  private static Stream<DynamicTest> cases(
      String section, Function<JsonNode, String> name, Function<JsonNode, Executable> check) {
    return StreamSupport.stream(vectors.get(section).spliterator(), false)
        .map(c -> DynamicTest.dynamicTest(name.apply(c), check.apply(c)));
  }
}

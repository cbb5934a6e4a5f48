package dev.veil.http;

import static dev.veil.testing.Http.encode;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.veil.client.Role;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http;
import dev.veil.testing.Http.Response;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IdentityMapIT {
  private static TestNode node;
  private static String mapper;

  @BeforeAll
  static void start() {
    node = TestNode.start();
    mapper = node.newApiKey(Role.MAPPER);
    node.post("/v1/optout", node.newApiKey(Role.OPTOUT), "{\"email\":\"optedout@example.com\"}");
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  @Test
  void mapGet_email_returnsIdentifierAsGivenAdvertisingIdAndBucket() {
    Response r = node.get("/v1/identity/map?email=" + encode(" User@Example.com"), mapper);

    assertThat(r.code()).isEqualTo(200);
    JsonNode body = r.bodyNode();
    assertThat(body.path("identifier").asText()).isEqualTo(" User@Example.com");
    assertThat(Base64.getDecoder().decode(body.path("advertising_id").asText())).hasSize(32);
    assertThat(body.path("advertising_id").asText()).hasSize(44);
    assertThat(body.path("bucket_id").asText()).isNotEmpty();
  }

  @Test
  void mapGet_emailAndItsHash_mapToTheSameAdvertisingId() {
    JsonNode byEmail = node.get("/v1/identity/map?email=user%40example.com", mapper).bodyNode();
    JsonNode byHash =
        node.get(
                "/v1/identity/map?email_hash=" + encode(TestNode.sha256Base64("user@example.com")),
                mapper)
            .bodyNode();

    assertThat(byHash.path("advertising_id")).isEqualTo(byEmail.path("advertising_id"));
    assertThat(byHash.path("bucket_id")).isEqualTo(byEmail.path("bucket_id"));
  }

  @Test
  void mapGet_invalidIdentifier_returnsInvalidIdentifier() {
    Response r = node.get("/v1/identity/map?phone=555", mapper);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("clienterror");
    assertThat(r.message()).isEqualTo("Invalid Identifier");
  }

  @Test
  void mapGet_withoutIdentity_returnsRequiredParameterMissing() {
    Response r = node.get("/v1/identity/map", mapper);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.message()).startsWith("Required Parameter Missing: exactly one of");
  }

  @Test
  void mapGet_optedOutIdentity_returnsOptout() {
    Response r = node.get("/v1/identity/map?email=optedout%40example.com", mapper);

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("{\"status\":\"optout\"}");
  }

  @Test
  void map_withoutMapperRole_isUnauthorized() {
    String generator = node.newApiKey(Role.GENERATOR);

    assertThat(node.get("/v1/identity/map?email=a%40b.com", generator).code()).isEqualTo(401);
    assertThat(node.post("/v1/identity/map", null, "{\"email\":[\"a@b.com\"]}").code())
        .isEqualTo(401);
  }

  @Test
  void mapPost_mixedBatch_listsMappedAndUnmappedInInputOrder() {
    Response r =
        node.post(
            "/v1/identity/map",
            mapper,
            "{\"email\":[\"b@example.com\",\"not-an-email\","
                + "\"a@example.com\",\"optedout@example.com\",\"c@example.com\"]}");

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.status()).isEqualTo("success");
    JsonNode mapped = r.bodyNode().path("mapped");
    assertThat(identifiers(mapped))
        .containsExactly("b@example.com", "a@example.com", "c@example.com");
    JsonNode unmapped = r.bodyNode().path("unmapped");
    assertThat(identifiers(unmapped)).containsExactly("not-an-email", "optedout@example.com");
    assertThat(unmapped.get(0).path("reason").asText()).isEqualTo("invalid identifier");
    assertThat(unmapped.get(1).path("reason").asText()).isEqualTo("optout");
    JsonNode single = node.get("/v1/identity/map?email=a%40example.com", mapper).bodyNode();
    assertThat(mapped.get(1).path("advertising_id")).isEqualTo(single.path("advertising_id"));
    assertThat(mapped.get(1).path("bucket_id")).isEqualTo(single.path("bucket_id"));
  }

  @Test
  void mapPost_allMapped_omitsUnmapped() {
    Response r =
        node.post("/v1/identity/map", mapper, "{\"phone\":[\"+14155550100\",\"+14155550101\"]}");

    assertThat(r.bodyNode().path("mapped")).hasSize(2);
    assertThat(r.bodyNode().has("unmapped")).isFalse();
  }

  @Test
  void mapPost_ignoresUnknownMembersAndEmptyArrays() {
    Response r =
        node.post(
            "/v1/identity/map",
            mapper,
            "{\"policy\":{\"x\":[1,2]},\"email\":[],\"email_hash\":[\""
                + TestNode.sha256Base64("a@b.com")
                + "\"]}");

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.bodyNode().path("mapped")).hasSize(1);
  }

  @Test
  void mapPost_escapesIdentifiersInTheAnswer() {
    Response r =
        node.post("/v1/identity/map", mapper, "{\"email\":[\"quote\\\"back\\\\slash\\u0001\"]}");

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.bodyNode().path("unmapped").get(0).path("identifier").asText())
        .isEqualTo("quote\"back\\slash\u0001");
  }

  @Test
  void mapPost_echoesEveryIdentifierAsGiven_beyondTheBmpAndLoneSurrogatesIncluded() {
    Response r =
        node.post(
            "/v1/identity/map",
            mapper,
            "{\"email\":[\"\u00c4nne@b\u00fccher.de\","
                + "\"\ud83d\ude00@example.com\",\"\\ud800@example.com\",\"tab\\t@x.y\"]}");

    assertThat(r.code()).isEqualTo(200);
    assertThat(identifiers(r.bodyNode().path("mapped")))
        .containsExactly("\u00c4nne@b\u00fccher.de", "\ud83d\ude00@example.com");
    assertThat(identifiers(r.bodyNode().path("unmapped")))
        .containsExactly("\ud800@example.com", "tab\t@x.y");
  }

  @Test
  void mapPost_atTheBatchLimit_mapsEveryIdentifier() {
    Response r = node.post("/v1/identity/map", mapper, emails(5_000));

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.bodyNode().path("mapped")).hasSize(5_000);
    assertThat(r.bodyNode().path("mapped").get(4_999).path("identifier").asText())
        .isEqualTo("user4999@example.com");
  }

  /**
   * A last, empty batch is not an error: UID2's operator answers it with nothing mapped, and so
   * does Veil in both profiles; only a body without any of the four arrays is refused.
   */
  @ParameterizedTest(name = "{0} in the {1} profile")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"email\":[]}                    | veil",
        "{\"phone_hash\":[]}               | veil",
        "{\"email\":[],\"phone\":[]}        | veil",
        "{\"email\":[],\"policy\":1}        | veil",
        "{\"email_hash\":[],\"optout_check\":1} | veil",
        "{\"email\":[]}                    | uid2",
        "{\"phone\":[],\"policy\":1}        | uid2",
        "{\"email\":[],\"optout_check\":1}  | uid2",
      })
  void mapPost_emptyArrays_isAnEmptySuccess(String body, String profile) {
    TestNode answering =
        profile.equals("veil") ? node : TestNode.start(Map.of("api.profile", profile));
    try {
      String key = answering == node ? mapper : answering.newApiKey(Role.MAPPER);
      Response r = answering.post("/v1/identity/map", key, body);

      assertThat(r.code()).as(r.body()).isEqualTo(200);
      assertThat(r.status()).isEqualTo("success");
      assertThat(r.bodyNode().path("mapped").isArray()).isTrue();
      assertThat(r.bodyNode().path("mapped")).isEmpty();
      assertThat(r.bodyNode().path("unmapped")).isEmpty();
    } finally {
      if (answering != node) {
        answering.close();
      }
    }
  }

  @Test
  void mapPost_overTheBatchLimit_returnsClientError() {
    Response r = node.post("/v1/identity/map", mapper, emails(5_001));

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("clienterror");
    assertThat(r.message()).isEqualTo("Too many identifiers: at most 5000 per request");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "not JSON                 | hello                    "
            + "               | Malformed JSON body: not valid JSON",
        "empty                    | ''                            "
            + "          | Request body is empty: expected a JSON object",
        "array                    | [\"a@b.com\"]           "
            + "                | Request body must be a JSON object",
        "string                   | \"a@b.com\"             "
            + "                | Request body must be a JSON object",
        "no array key             | {\"emails\":[\"a@b.com\"]}              | Invalid "
            + "body: expected an array of email, email_hash, phone or phone_hash",
        "value not an array       | {\"email\":\"a@b.com\"}        "
            + "         | Invalid body: email must be an array of strings",
        "null value               | {\"phone\":null}               "
            + "         | Invalid body: phone must be an array of strings",
        "number element           | {\"email\":[\"a@b.com\",7]} "
            + "            | Invalid body: email[1] must be a string",
        "null element             | {\"email_hash\":[null]}      "
            + "           | Invalid body: email_hash[0] must be a string",
        "nested element           | {\"email\":[[\"a@b.com\"]]} "
            + "            | Invalid body: email[0] must be a string",
        "two non-empty arrays     | {\"email\":[\"a@b.com\"],\"phone\":[\"+14155550100\"]} | "
            + "Invalid body: only one of email, email_hash,"
            + " phone, phone_hash may hold a non-empty array",
        "second array, bad element | {\"email\":[\"a@b.com\"],"
            + "\"phone\":[\"+14155550100\",7]} | Invalid body: phone[1] must be a string",
        "empty, then two arrays   | {\"phone\":[],\"email\":[\"a@b.com\"],\"email_hash\":[\"x\"]} |"
            + " Invalid body: only one of email, email_hash,"
            + " phone, phone_hash may hold a non-empty array",
        "duplicate key            | {\"email\":[\"a@b.com\"],"
            + "\"email\":[\"c@d.com\"]} | Malformed JSON body: a key appears more than once",
        "truncated                | {\"email\":[\"a@b.com\"      "
            + "           | Malformed JSON body: unexpected end of input",
        "trailing content         | {\"email\":[\"a@b.com\"]}]           "
            + "   | Malformed JSON body: unexpected content after the JSON value",
      })
  void mapPost_badBody_returnsClientErrorNamingTheProblem(
      String name, String body, String message) {
    Response r = node.post("/v1/identity/map", mapper, body);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("clienterror");
    assertThat(r.message()).isEqualTo(message);
  }

  @Test
  void mapPost_deeplyNestedJson_returnsClientError() {
    String deep = "{\"x\":" + "[".repeat(10_000) + "]".repeat(10_000) + ",\"email\":[\"a@b.com\"]}";

    Response r = node.post("/v1/identity/map", mapper, deep);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.message()).startsWith("JSON body exceeds a limit");
  }

  @Test
  void mapPost_hugeNumber_returnsClientError() {
    Response r =
        node.post(
            "/v1/identity/map",
            mapper,
            "{\"x\":" + "9".repeat(5_000) + ",\"email\":[\"a@b.com\"]}");

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.message()).startsWith("JSON body exceeds a limit");
  }

  @Test
  void mapPost_bytesALenientDecoderWouldReadAsOtherCharacters_areNotUtf8() {
    // overlong "A" (would map a@b.c), overlong "/", a surrogate, a code point above U+10FFFF
    for (byte[] bad :
        new byte[][] {
          {(byte) 0xC1, (byte) 0x81},
          {(byte) 0xC0, (byte) 0xAF},
          {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
          {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}
        }) {
      java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
      body.writeBytes("{\"email\":[\"".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      body.writeBytes(bad);
      body.writeBytes("@b.c\"]}".getBytes(java.nio.charset.StandardCharsets.US_ASCII));

      Response r =
          node.send(
              HttpRequest.newBuilder(node.uri("/v1/identity/map"))
                  .header("Authorization", Http.bearer(mapper))
                  .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()))
                  .build());

      assertThat(r.code()).isEqualTo(400);
      assertThat(r.message()).isEqualTo("Malformed JSON body: not valid UTF-8");
    }
  }

  @Test
  void mapPost_aBodyInUtf16OrUtf32_isRefused() {
    String json = "{\"email\":[\"a@b.c\"]}";
    for (java.nio.charset.Charset charset :
        new java.nio.charset.Charset[] {
          java.nio.charset.StandardCharsets.UTF_16LE,
          java.nio.charset.StandardCharsets.UTF_16BE,
          java.nio.charset.Charset.forName("UTF-32BE")
        }) {
      Response r =
          node.send(
              HttpRequest.newBuilder(node.uri("/v1/identity/map"))
                  .header("Authorization", Http.bearer(mapper))
                  .POST(HttpRequest.BodyPublishers.ofByteArray(json.getBytes(charset)))
                  .build());

      assertThat(r.code()).as(charset.name()).isEqualTo(400);
      assertThat(r.message()).as(charset.name()).startsWith("Malformed JSON body: not UTF-8");
    }
  }

  @Test
  void mapPost_aCompressedBody_isRefusedSayingSo_andAPlainBodyLabelledGzipIsRead()
      throws java.io.IOException {
    byte[] json = "{\"email\":[\"a@b.c\"]}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    java.io.ByteArrayOutputStream gzipped = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream out = new java.util.zip.GZIPOutputStream(gzipped)) {
      out.write(json);
    }

    Response compressed =
        node.send(
            HttpRequest.newBuilder(node.uri("/v1/identity/map"))
                .header("Authorization", Http.bearer(mapper))
                .header("Content-Encoding", "gzip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(gzipped.toByteArray()))
                .build());
    Response plain =
        node.send(
            HttpRequest.newBuilder(node.uri("/v1/identity/map"))
                .header("Authorization", Http.bearer(mapper))
                .header("Content-Encoding", "gzip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(json))
                .build());

    assertThat(compressed.code()).isEqualTo(400);
    assertThat(compressed.status()).isEqualTo("clienterror");
    assertThat(compressed.message()).isEqualTo(BodyReader.ENCODED);
    assertThat(plain.code()).isEqualTo(200);
  }

  @Test
  void mapPost_invalidUtf8_returnsClientError() {
    byte[] body = {
      '{', '"', 'e', 'm', 'a', 'i', 'l', '"', ':', '[', '"', (byte) 0xC3, (byte) 0x28, '"', ']', '}'
    };

    Response r =
        node.send(
            HttpRequest.newBuilder(node.uri("/v1/identity/map"))
                .header("Authorization", Http.bearer(mapper))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build());

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.message()).isEqualTo("Malformed JSON body: not valid UTF-8");
  }

  @Test
  void mapPost_acceptsTextPlainContentType() {
    Response r =
        node.send(
            HttpRequest.newBuilder(node.uri("/v1/identity/map"))
                .header("Authorization", Http.bearer(mapper))
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("{\"email\":[\"a@b.com\"]}"))
                .build());

    assertThat(r.code()).isEqualTo(200);
  }

  private static String emails(int count) {
    return IntStream.range(0, count)
        .mapToObj(i -> "\"user" + i + "@example.com\"")
        .collect(Collectors.joining(",", "{\"email\":[", "]}"));
  }

  private static List<String> identifiers(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.path("identifier").asText()));
    return out;
  }
}

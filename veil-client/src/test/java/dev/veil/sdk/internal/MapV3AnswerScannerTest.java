package dev.veil.sdk.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.core.identity.IdentityInput;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The scanner of v3 map answers reads every answer in the server's shape exactly as the general
 * parser does, and gives up (null, so the general parser reads it) on anything else.
 */
class MapV3AnswerScannerTest {
  private static String id(Random random) {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** An answer as the server writes it: the kind's entries first, then the others empty. */
  private static String serverShaped(Random random, IdentityInput kind, int n) {
    StringBuilder json = new StringBuilder("{\"status\":\"success\",\"body\":{");
    json.append('"').append(kind.parameterName()).append("\":[");
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        json.append(',');
      }
      switch (random.nextInt(6)) {
        case 0 -> json.append("{\"e\":\"optout\"}");
        case 1 -> json.append("{\"e\":\"invalid identifier\"}");
        case 2 ->
            json.append("{\"u\":\"")
                .append(id(random))
                .append("\",\"p\":\"")
                .append(id(random))
                .append("\",\"r\":")
                .append(1_700_000_000L + random.nextInt(100_000_000))
                .append('}');
        default ->
            json.append("{\"u\":\"")
                .append(id(random))
                .append("\",\"p\":null,\"r\":")
                .append(random.nextInt(3) == 0 ? random.nextInt(10) : 1_790_000_000L + i)
                .append('}');
      }
    }
    json.append(']');
    for (IdentityInput other : IdentityInput.values()) {
      if (other != kind) {
        json.append(",\"").append(other.parameterName()).append("\":[]");
      }
    }
    return json.append("}}").toString();
  }

  private static MapAnswer parsed(String json, IdentityInput kind, int n) throws IOException {
    return MapV3Json.parse(new ByteArrayInputStream(json.getBytes(UTF_8)), kind, n);
  }

  private static void assertSameResults(MapAnswer scanned, MapAnswer parsed) {
    assertThat(scanned.isV3()).isTrue();
    assertThat(scanned.size()).isEqualTo(parsed.size());
    for (int i = 0; i < parsed.size(); i++) {
      assertThat(scanned.isMapped(i)).as("entry %d", i).isEqualTo(parsed.isMapped(i));
      if (!parsed.isMapped(i)) {
        assertThat(scanned.reason(i)).as("entry %d", i).isEqualTo(parsed.reason(i));
        continue;
      }
      assertThat(scanned.advertisingId(i)).as("entry %d", i).isEqualTo(parsed.advertisingId(i));
      assertThat(scanned.bucketIdLength(i)).isZero();
      assertThat(scanned.hasPrevious(i)).as("entry %d", i).isEqualTo(parsed.hasPrevious(i));
      if (parsed.hasPrevious(i)) {
        assertThat(previous(scanned, i)).as("entry %d", i).isEqualTo(previous(parsed, i));
      }
      assertThat(scanned.refreshFromMillis(i))
          .as("entry %d", i)
          .isEqualTo(parsed.refreshFromMillis(i));
    }
  }

  private static String previous(MapAnswer a, int i) {
    return new String(a.data(), a.previousStart(i), a.previousLength(i), UTF_8);
  }

  @Test
  void serverShapedAnswers_areScannedAsTheGeneralParserReadsThem() throws IOException {
    Random random = new Random(7);
    IdentityInput[] kinds = IdentityInput.values();
    for (int round = 0; round < 300; round++) {
      IdentityInput kind = kinds[round % kinds.length];
      int n = round % 50;
      String json = serverShaped(random, kind, n);

      MapAnswer scanned = MapV3AnswerScanner.scan(json.getBytes(UTF_8), kind, n);

      assertThat(scanned).as(json).isNotNull();
      assertThat(scanned.idsPlainCsv()).isTrue();
      assertSameResults(scanned, parsed(json, kind, n));
      assertSameResults(
          MapV3Json.answer(new ByteArrayInputStream(json.getBytes(UTF_8)), kind, n),
          parsed(json, kind, n));
    }
  }

  @Test
  void membersInAnotherOrder_andTrailingWhitespace_areScannedToo() throws IOException {
    String json =
        "{\"status\":\"success\",\"body\":{\"email\":[],\"phone\":[{\"u\":\"AAA=\",\"p\":null,"
            + "\"r\":1700000000}],\"email_hash\":[],\"phone_hash\":[]}}\n";

    MapAnswer scanned = MapV3AnswerScanner.scan(json.getBytes(UTF_8), IdentityInput.PHONE, 1);

    assertThat(scanned).isNotNull();
    assertSameResults(scanned, parsed(json, IdentityInput.PHONE, 1));
  }

  @Test
  void anIdWithAComma_isScanned_butNotPlainCsv() throws IOException {
    String json =
        "{\"status\":\"success\",\"body\":{\"email\":[{\"u\":\"A,A\",\"p\":\"B,B\",\"r\":5}]}}";

    MapAnswer scanned = MapV3AnswerScanner.scan(json.getBytes(UTF_8), IdentityInput.EMAIL, 1);

    assertThat(scanned).isNotNull();
    assertThat(scanned.idsPlainCsv()).isFalse();
    assertSameResults(scanned, parsed(json, IdentityInput.EMAIL, 1));
  }

  @Test
  void anyOtherShape_isLeftToTheGeneralParser() {
    String entry = "{\"u\":\"AAA=\",\"p\":null,\"r\":1700000000}";
    String[] others = {
      "{\"status\": \"success\",\"body\":{\"email\":[" + entry + "]}}", // a space
      "{\"body\":{\"email\":[" + entry + "]},\"status\":\"success\"}", // another member order
      "{\"status\":\"success\",\"body\":{\"email\":[{\"p\":null,\"u\":\"AAA=\",\"r\":1}]}}",
      "{\"status\":\"success\",\"body\":{\"email\":[{\"u\":\"A\\u0041\",\"p\":null,\"r\":1}]}}",
      "{\"status\":\"success\",\"body\":{\"email\":[{\"u\":\"AAA=\",\"r\":1}]}}", // no p
      "{\"status\":\"success\",\"body\":{\"email\":[{\"u\":\"AAA=\",\"p\":null,\"r\":1e3}]}}",
      "{\"status\":\"success\",\"body\":{\"email\":[{\"u\":\"AAA=\",\"p\":null,\"r\":01}]}}",
      "{\"status\":\"success\",\"body\":{\"email\":[{\"u\":\"AAA=\",\"p\":null,\"r\":-1}]}}",
      "{\"status\":\"success\",\"body\":{\"email\":[{\"u\":\"AAA=\",\"p\":null,"
          + "\"r\":1234567890123456}]}}", // 16 digits
      "{\"status\":\"success\",\"body\":{\"email\":[{\"u\":\"\",\"p\":null,\"r\":1}]}}",
      "{\"status\":\"success\",\"body\":{\"email\":[" + entry + "," + entry + "]}}", // too many
      "{\"status\":\"success\",\"body\":{\"email\":[]}}", // too few
      "{\"status\":\"success\",\"body\":{\"phone\":[" + entry + "]}}", // another kind
      "{\"status\":\"success\",\"body\":{\"email\":[" + entry + "],\"phone\":[" + entry + "]}}",
      "{\"status\":\"success\",\"body\":{\"email\":[" + entry + "],\"email\":[]}}", // twice
      "{\"status\":\"success\",\"body\":{\"email\":[" + entry + "],\"mail\":[]}}", // unknown kind
      "{\"status\":\"success\",\"body\":{\"email\":[" + entry + "]}}x", // trailing bytes
      "{\"status\":\"success\",\"body\":{\"email\":[" + entry + "]}", // cut short
      "{\"status\":\"optout\",\"body\":{\"email\":[" + entry + "]}}",
    };
    for (String json : others) {
      assertThat(MapV3AnswerScanner.scan(json.getBytes(UTF_8), IdentityInput.EMAIL, 1))
          .as(json)
          .isNull();
    }
  }
}

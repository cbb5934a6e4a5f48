package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JsonBytesTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static String written(JsonBytes json) {
    return json.toBuffer().toString(StandardCharsets.UTF_8);
  }

  private static String jackson(String value) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = Envelope.JSON.createGenerator(out)) {
      g.writeString(value);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void string_escapesLikeJackson() throws Exception {
    for (String s :
        new String[] {
          "",
          "plain@example.com",
          "q\"uote\\back/slash",
          "tab\tnew\nline\r\b\f",
          "ctl\u0000\u0001\u001f\u007f",
          "Änne@bücher.de",
          "日本@例え.jp",
          "emoji \uD83D\uDE00 pair",
          "\u2028\u2029"
        }) {
      assertThat(written(new JsonBytes(4).string(s))).as(s).isEqualTo(jackson(s));
    }
  }

  @Test
  void string_loneSurrogates_becomeEscapes_thatReadBackToTheSameString() throws Exception {
    String s = "a\uD800b\uDC00c\uD83D";
    String json = written(new JsonBytes(4).string(s));
    assertThat(json).isEqualTo("\"a\\uD800b\\uDC00c\\uD83D\"");
    assertThat(MAPPER.readValue(json, String.class)).isEqualTo(s);
  }

  @Test
  void string_randomText_roundTripsThroughAJsonParser() throws Exception {
    Random random = new Random(7);
    for (int n = 0; n < 2000; n++) {
      char[] chars = new char[random.nextInt(20)];
      for (int i = 0; i < chars.length; i++) {
        chars[i] = (char) (random.nextBoolean() ? random.nextInt(0x80) : random.nextInt(0x10000));
      }
      String s = new String(chars);
      assertThat(MAPPER.readValue(written(new JsonBytes(1).string(s)), String.class)).isEqualTo(s);
    }
  }

  @Test
  void base64String_matchesTheJdk_forEveryLengthRemainder() {
    Random random = new Random(3);
    for (int n = 0; n < 40; n++) {
      byte[] bytes = new byte[n];
      random.nextBytes(bytes);
      assertThat(written(new JsonBytes(1).base64String(bytes, 0, n)))
          .isEqualTo("\"" + Base64.getEncoder().encodeToString(bytes) + "\"");
    }
  }

  @Test
  void number_writesEveryLong() {
    for (long v : new long[] {0, 7, 10, -1, -10, 1772366400123L, Long.MAX_VALUE, Long.MIN_VALUE}) {
      assertThat(written(new JsonBytes(1).number(v))).isEqualTo(Long.toString(v));
    }
  }

  @Test
  void number_writesEveryIntRangeValueAsLongToStringDoes() {
    long[] edges = {
      1,
      9,
      99,
      100,
      101,
      999,
      1000,
      9999,
      10000,
      99999,
      100000,
      999999,
      1000000,
      9999999,
      10000000,
      99999999,
      100000000,
      999999999,
      1000000000,
      1774310400L,
      2147483646L,
      Integer.MAX_VALUE,
      Integer.MAX_VALUE + 1L,
      -2147483648L
    };
    for (long v : edges) {
      assertThat(written(new JsonBytes(1).number(v))).isEqualTo(Long.toString(v));
    }
    Random random = new Random(42);
    for (int i = 0; i < 100_000; i++) {
      long v = random.nextInt(Integer.MAX_VALUE);
      assertThat(written(new JsonBytes(1).number(v))).isEqualTo(Long.toString(v));
    }
  }

  @Test
  void growsPastItsInitialCapacity() {
    JsonBytes json = new JsonBytes(1).raw('[');
    StringBuilder expected = new StringBuilder("[");
    for (int i = 0; i < 1000; i++) {
      json.number(i).raw(',');
      expected.append(i).append(',');
    }
    assertThat(written(json)).isEqualTo(expected.toString());
  }
}

package dev.veil.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.veil.core.identity.IdentityInput;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The map request and answer formats; answers in the server's own shape and in any other JSON. */
class MapJsonTest {
  private static final String ID_A = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
  private static final String ID_B = "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=";

  private static MapAnswer answer(String json, String... sent) throws IOException {
    return MapJson.answer(
        new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)),
        ValueList.of(List.of(sent)));
  }

  /** Each result as "advertisingId/bucketId" or "-reason". */
  private static List<String> results(MapAnswer a) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      out.add(a.isMapped(i) ? a.advertisingId(i) + "/" + a.bucketId(i) : "-" + a.reason(i));
    }
    return out;
  }

  @Test
  void request_isTheKindsArrayOfTheValues_withJsonEscapes() {
    byte[] plain = MapJson.request(IdentityInput.EMAIL, ValueList.of(List.of("a@b.c", "d@e.f")));
    byte[] escaped = MapJson.request(IdentityInput.PHONE, ValueList.of(List.of("q\"\\\n", "é")));

    assertThat(new String(plain, StandardCharsets.UTF_8))
        .isEqualTo("{\"email\":[\"a@b.c\",\"d@e.f\"]}");
    assertThat(new String(escaped, StandardCharsets.UTF_8))
        .isEqualTo("{\"phone\":[\"q\\\"\\\\\\u000a\",\"é\"]}");
    // Made at its exact size (no bytes after the closing brace), with one value and with none.
    assertThat(
            new String(
                MapJson.request(IdentityInput.EMAIL_HASH, ValueList.of(List.of("h"))),
                StandardCharsets.UTF_8))
        .isEqualTo("{\"email_hash\":[\"h\"]}");
    assertThat(
            new String(
                MapJson.request(IdentityInput.EMAIL, ValueList.of(List.of())),
                StandardCharsets.UTF_8))
        .isEqualTo("{\"email\":[]}");
  }

  @Test
  void theServersShape_mappedAndUnmapped_matchedByEchoAlongTheRequest() throws IOException {
    String json =
        "{\"status\":\"success\",\"body\":{\"mapped\":["
            + "{\"identifier\":\"a@x.com\",\"advertising_id\":\""
            + ID_A
            + "\",\"bucket_id\":\"k1\"},"
            + "{\"identifier\":\"ü@x.com\",\"advertising_id\":\""
            + ID_B
            + "\",\"bucket_id\":\"k2\"},"
            + "{\"identifier\":\"a@x.com\",\"advertising_id\":\""
            + ID_A
            + "\",\"bucket_id\":\"k1\"}],"
            + "\"unmapped\":[{\"identifier\":\"nope\",\"reason\":\"invalid identifier\"},"
            + "{\"identifier\":\"gone@x.com\",\"reason\":\"optout\"}]}}\n";

    MapAnswer a = answer(json, "nope", "a@x.com", "ü@x.com", "gone@x.com", "a@x.com");

    assertThat(results(a))
        .containsExactly(
            "-invalid identifier", ID_A + "/k1", ID_B + "/k2", "-optout", ID_A + "/k1");
  }

  @Test
  void idsPlainCsv_isKnownFromTheScan_andFalseWhenAnIdHoldsAComma() throws IOException {
    String plain =
        "{\"status\":\"success\",\"body\":{\"mapped\":["
            + "{\"identifier\":\"a@x.com\",\"advertising_id\":\""
            + ID_A
            + "\",\"bucket_id\":\"k1\"}]}}";
    String comma =
        "{\"status\":\"success\",\"body\":{\"mapped\":["
            + "{\"identifier\":\"a@x.com\",\"advertising_id\":\""
            + ID_A
            + "\",\"bucket_id\":\"k,1\"},"
            + "{\"identifier\":\"b@x.com\",\"advertising_id\":\""
            + ID_B
            + "\",\"bucket_id\":\"k2\"}]}}";
    String spaced =
        "{ \"status\":\"success\",\"body\":{\"mapped\":["
            + "{\"identifier\":\"a@x.com\",\"advertising_id\":\""
            + ID_A
            + "\",\"bucket_id\":\"k1\"}]}}";

    assertThat(answer(plain, "a@x.com").idsPlainCsv()).isTrue();
    MapAnswer withComma = answer(comma, "a@x.com", "b@x.com");
    assertThat(withComma.idsPlainCsv()).isFalse();
    assertThat(results(withComma)).containsExactly(ID_A + "/k,1", ID_B + "/k2");
    assertThat(answer(spaced, "a@x.com").idsPlainCsv())
        .isFalse(); // not scanned in place: not known
  }

  @Test
  void otherShapes_spacesOrderEscapesUnknownMembers_areReadByTheGeneralParser() throws IOException {
    String json =
        "{ \"body\": { \"unmapped\": [ {\"reason\": \"optout\", \"identifier\": \"o\\u0040x.com\"}"
            + " ],\n"
            + "  \"extra\": [1, {\"x\": null}], \"mapped\": [ {\"bucket_id\": \"k9\","
            + " \"identifier\": \"q\\\"@x.com\", \"advertising_id\": \""
            + ID_B
            + "\", \"note\": true} ] }, \"status\": \"success\" }";

    MapAnswer a = answer(json, "q\"@x.com", "o@x.com");

    assertThat(results(a)).containsExactly(ID_B + "/k9", "-optout");
  }

  @Test
  void emptyLists_andAnAnswerWithoutUnmapped() throws IOException {
    assertThat(results(answer("{\"status\":\"success\",\"body\":{\"mapped\":[]}}"))).isEmpty();
    assertThat(
            results(
                answer(
                    "{\"status\":\"success\",\"body\":{\"mapped\":[],\"unmapped\":["
                        + "{\"identifier\":\"x\",\"reason\":\"optout\"}]}}",
                    "x")))
        .containsExactly("-optout");
  }

  @Test
  void anAnswerThatDoesNotMatchTheRequest_isAnError_inEitherShape() {
    String exact =
        "{\"status\":\"success\",\"body\":{\"mapped\":["
            + "{\"identifier\":\"b@x.com\",\"advertising_id\":\""
            + ID_A
            + "\",\"bucket_id\":\"k1\"}]}}";
    String spaced = exact.replace(",", ", ");

    for (String json : List.of(exact, spaced)) {
      assertThatThrownBy(() -> answer(json, "a@x.com"))
          .isInstanceOf(JsonProcessingException.class)
          .hasMessageContaining("does not match the request");
      assertThatThrownBy(() -> answer(json, "b@x.com", "c@x.com"))
          .isInstanceOf(JsonProcessingException.class);
    }
    assertThatThrownBy(() -> answer(exact))
        .isInstanceOf(JsonProcessingException.class)
        .hasMessageContaining("more entries than the request");
  }

  @Test
  void anEchoThatOnlyStartsWithTheValueSent_isNotItsEcho() {
    String json =
        "{\"status\":\"success\",\"body\":{\"mapped\":["
            + "{\"identifier\":\"a@x.com\",\"advertising_id\":\""
            + ID_A
            + "\",\"bucket_id\":\"k1\"}]}}";

    assertThatThrownBy(() -> answer(json, "a@x.co")).isInstanceOf(JsonProcessingException.class);
    assertThatThrownBy(() -> answer(json.replace("a@x.com", "a@x.com\\u0022"), "a@x.com"))
        .isInstanceOf(JsonProcessingException.class);
  }

  @Test
  void aRefusalEnvelope_isNotAnAnswer() {
    assertThatThrownBy(() -> answer("{\"status\":\"optout\"}", "a@x.com"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("status optout");
  }
}

package dev.veil.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.identity.IdentityInput;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Reading {@code POST /v3/identity/map} answers: index-aligned results, and answers refused. */
class MapV3JsonTest {
  private static MapAnswer read(String body, IdentityInput kind, int expected) throws IOException {
    String json = "{\"status\":\"success\",\"body\":" + body + "}";
    return MapV3Json.answer(
        new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), kind, expected);
  }

  @Test
  void entries_areReadByIndex_withPreviousIdsRefreshTimesAndReasons() throws IOException {
    MapAnswer a =
        read(
            "{\"email\":[],\"phone\":[{\"u\":\"AAA=\",\"p\":\"BBB=\",\"r\":1700000000},"
                + "{\"e\":\"optout\"},{\"r\":1700000001,\"p\":null,\"u\":\"CCC=\"},"
                + "{\"e\":\"invalid identifier\"}],\"email_hash\":[],\"phone_hash\":[]}",
            IdentityInput.PHONE,
            4);
    assertThat(a.isV3()).isTrue();
    assertThat(a.size()).isEqualTo(4);
    assertThat(a.advertisingId(0)).isEqualTo("AAA=");
    assertThat(a.hasPrevious(0)).isTrue();
    assertThat(
            new String(a.data(), a.previousStart(0), a.previousLength(0), StandardCharsets.UTF_8))
        .isEqualTo("BBB=");
    assertThat(a.refreshFromMillis(0)).isEqualTo(1_700_000_000_000L);
    assertThat(a.isMapped(1)).isFalse();
    assertThat(a.reason(1)).isEqualTo("optout");
    assertThat(a.advertisingId(2)).isEqualTo("CCC=");
    assertThat(a.hasPrevious(2)).isFalse();
    assertThat(a.bucketIdLength(2)).isZero();
    assertThat(a.reason(3)).isEqualTo("invalid identifier");
  }

  @Test
  void answersThatDoNotMatchTheRequest_areRefused() {
    assertThatThrownBy(() -> read("{\"email\":[{\"e\":\"optout\"}]}", IdentityInput.EMAIL, 2))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("1 entries for 2 values");
    assertThatThrownBy(
            () ->
                read("{\"email\":[{\"e\":\"optout\"},{\"e\":\"optout\"}]}", IdentityInput.EMAIL, 1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("more entries than the request");
    assertThatThrownBy(() -> read("{\"phone\":[]}", IdentityInput.EMAIL, 0))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("lacks the kind sent");
    assertThatThrownBy(
            () -> read("{\"email\":[],\"phone\":[{\"e\":\"optout\"}]}", IdentityInput.EMAIL, 0))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("a kind that was not sent");
    assertThatThrownBy(() -> read("{\"email\":[{\"u\":\"AAA=\"}]}", IdentityInput.EMAIL, 1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("lacks u or r");
    assertThatThrownBy(
            () -> read("{\"email\":[{\"u\":\"AAA=\",\"r\":1e3}]}", IdentityInput.EMAIL, 1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not a whole number");
    assertThatThrownBy(
            () ->
                read(
                    "{\"email\":[{\"u\":\"AAA=\",\"r\":9223372036854775807}]}",
                    IdentityInput.EMAIL,
                    1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("out of range");
  }
}

package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.common.VeilException;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SinceTimestampTest {
  @ParameterizedTest
  @CsvSource({
    "2021-09-01T00:00:00, 2021-09-01T00:00:00Z",
    "2021-09-01T00:00, 2021-09-01T00:00:00Z",
    "2021-09-01T00:00:00.250, 2021-09-01T00:00:00.250Z",
    "2021-09-01T00:00:00Z, 2021-09-01T00:00:00Z",
    "1630454400, 2021-09-01T00:00:00Z",
    "0, 1970-01-01T00:00:00Z",
    "999999999999, +33658-09-27T01:46:39Z",
  })
  void parsesBothForms(String text, String expected) {
    assertThat(SinceTimestamp.parse(text)).isEqualTo(Instant.parse(expected));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        " ",
        "1630454400000",
        "-1",
        "+5",
        "2021-09-01",
        "2021-09-01T25:00:00",
        "2021-02-30T00:00:00",
        "2021-09-01T00:00:00+02:00",
        "10000-01-01T00:00:00",
        "0x10"
      })
  void refusesEverythingElse(String text) {
    assertThatThrownBy(() -> SinceTimestamp.parse(text))
        .isInstanceOf(VeilException.class)
        .hasMessage(SinceTimestamp.INVALID);
  }

  @org.junit.jupiter.api.Test
  void missing_isRequiredParameterMissing() {
    assertThatThrownBy(() -> SinceTimestamp.parse(null))
        .hasMessage("Required Parameter Missing: since_timestamp");
  }
}

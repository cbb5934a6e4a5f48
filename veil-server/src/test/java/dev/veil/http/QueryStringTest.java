package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.common.VeilException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class QueryStringTest {
  @Test
  void decodesPercentEscapesAndPlusOnce() {
    Params p = QueryString.parse("email=a%40b.com&hash=x+y%2Bz&twice=%2541&utf8=%C3%A9");

    assertThat(p.get("email")).isEqualTo("a@b.com");
    assertThat(p.get("hash")).isEqualTo("x y+z");
    assertThat(p.get("twice")).isEqualTo("%41");
    assertThat(p.get("utf8")).isEqualTo("é");
  }

  @Test
  void nameWithoutValue_isEmpty_andEmptySegmentsAreSkipped() {
    Params p = QueryString.parse("&a&&b=&");

    assertThat(p.get("a")).isEmpty();
    assertThat(p.get("b")).isEmpty();
    assertThat(p.has("")).isFalse();
    assertThat(p.get("c")).isNull();
  }

  @Test
  void repeatedName_isCountedTwice_andGetRefusesToChoose() {
    Params p = QueryString.parse("email=a&email=b");

    assertThat(p.count("email")).isEqualTo(2);
    assertThatThrownBy(() -> p.get("email"))
        .isInstanceOf(VeilException.class)
        .hasMessage("Parameter given more than once: email");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"a=%", "a=%4", "a=%G1", "a=%C3", "a=%C3%28", "a=%FF", "a=%ED%A0%80", "%zz=1"})
  void brokenEscapesOrInvalidUtf8_areClientErrors(String query) {
    assertThatThrownBy(() -> QueryString.parse(query))
        .isInstanceOf(VeilException.class)
        .hasMessage(QueryString.MALFORMED);
  }

  @Test
  void nullOrEmptyQuery_hasNoParameters() {
    assertThat(QueryString.parse(null).has("a")).isFalse();
    assertThat(QueryString.parse("").has("a")).isFalse();
  }
}

package dev.veil.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

/**
 * The bound of a list, measured in one scan where it can, is the sum of its values' own bounds,
 * however adds and asks interleave.
 */
class ValueListProperties {
  @Property(tries = 1000)
  void jsonBound_isTheSumOfEachValuesBound(
      @ForAll @Size(max = 40) List<String> values, @ForAll List<Boolean> askAfter) {
    ValueList list = new ValueList(1, 16);
    int expected = 0;
    for (int i = 0; i < values.size(); i++) {
      byte[] b = values.get(i).getBytes(StandardCharsets.UTF_8);
      list.add(b, 0, b.length);
      expected += ValueList.jsonBytesBound(b, 0, b.length);
      if (i < askAfter.size() && askAfter.get(i)) {
        assertThat(list.jsonBytesBound()).isEqualTo(expected);
      }
    }

    assertThat(list.jsonBytesBound()).isEqualTo(expected);
    assertThat(list.needsEscapes())
        .isEqualTo(
            values.stream()
                .anyMatch(v -> v.chars().anyMatch(c -> c < 0x20 || c == '"' || c == '\\')));
  }
}

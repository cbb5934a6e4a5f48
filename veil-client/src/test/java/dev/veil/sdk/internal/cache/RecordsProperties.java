package dev.veil.sdk.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The quick length of ADD and MAP records is the length read field by field, however much of the
 * record is at hand.
 */
class RecordsProperties {
  @Property(tries = 3000)
  void quickLength_agreesWithTheFieldByFieldLength(
      @ForAll boolean add,
      @ForAll @IntRange(min = 0, max = 300) int first,
      @ForAll @IntRange(min = 0, max = 200) int second,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int entry,
      @ForAll @IntRange(min = 0, max = 400) int cut)
      throws IOException {
    Frame f = new Frame(64);
    byte[] value = new byte[first + second];
    if (add) {
      f.add(1, value, 0, first);
    } else {
      f.map(entry, 1_700_000_000_000L, value, 0, first, first, second);
    }
    byte[] b = f.array();
    int off = Frame.HEAD;
    int size = f.payloadSize();
    int available = Math.min(cut, size);

    int quick = Records.quickLength(b, off, off + available);
    int parsed = Records.parsedLength(new Records.Cursor(b, off, off + available), off);

    if (quick >= 0) {
      assertThat(quick).isEqualTo(parsed);
    }
    assertThat(Records.length(new Records.Cursor(b, off, off + available), off)).isEqualTo(parsed);
    if (available == size) {
      assertThat(parsed).isEqualTo(size);
    }
  }
}

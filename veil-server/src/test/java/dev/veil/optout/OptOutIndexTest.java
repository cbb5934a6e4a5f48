package dev.veil.optout;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class OptOutIndexTest {
  private static byte[] hash(Random r) {
    byte[] b = new byte[32];
    r.nextBytes(b);
    return b;
  }

  @Test
  void contains_findsEveryAddedHash_andNoOther_acrossGrowth() {
    OptOutIndex index = new OptOutIndex();
    Random r = new Random(42);
    byte[][] added = new byte[50_000][];
    for (int i = 0; i < added.length; i++) {
      added[i] = hash(r);
      assertThat(index.add(added[i])).isTrue();
    }
    for (byte[] h : added) {
      assertThat(index.contains(h)).isTrue();
    }
    for (int i = 0; i < 50_000; i++) {
      assertThat(index.contains(hash(r))).isFalse();
    }
    assertThat(index.size()).isEqualTo(50_000);
  }

  @Test
  void add_isIdempotent() {
    OptOutIndex index = new OptOutIndex();
    byte[] h = hash(new Random(1));
    assertThat(index.add(h)).isTrue();
    assertThat(index.add(h.clone())).isFalse();
    assertThat(index.size()).isEqualTo(1);
  }

  @Test
  void zeroFingerprint_isStillFound() {
    OptOutIndex index = new OptOutIndex();
    byte[] zeros = new byte[32];
    assertThat(index.contains(zeros)).isFalse();
    index.add(zeros);
    assertThat(index.contains(zeros)).isTrue();
  }

  @Test
  void memory_staysUnder32BytesPerRecord() {
    OptOutIndex index = new OptOutIndex();
    Random r = new Random(7);
    int n = 1_000_000;
    for (int i = 0; i < n; i++) {
      index.add(hash(r));
    }
    assertThat(index.tableBytes() / (double) n).isLessThanOrEqualTo(32.0);
  }
}

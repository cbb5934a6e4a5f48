package dev.veil.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The compact map of rotated buckets answers as a {@code HashMap} of the same merges does, through
 * every growth.
 */
class RotatedBucketsProperties {
  /** A bucket id (short, from a small alphabet so that ids repeat) and a time. */
  record Merge(String id, long millis) {}

  @Property(tries = 300)
  void afterAnyMerges_everyIdAnswersAsAHashMapOfTheLatestTimes(
      @ForAll("merges") List<Merge> merges, @ForAll("ids") List<String> probes) {
    RotatedBuckets compact = new RotatedBuckets();
    Map<String, Long> reference = new HashMap<>();
    for (Merge m : merges) {
      compact.merge(m.id(), m.millis());
      reference.merge(m.id(), m.millis(), Math::max);
    }

    assertThat(compact.size()).isEqualTo(reference.size());
    for (long from : new long[] {-6, 0, 2_500, 5_001}) {
      assertThat(compact.countAtOrAfter(from))
          .as("count from %d", from)
          .isEqualTo(reference.values().stream().filter(t -> t >= from).count());
    }
    for (String id : reference.keySet()) {
      assertThat(compact.rotatedAtMillis(id, 0, id.length())).as(id).isEqualTo(reference.get(id));
      String row = "someone@example.com,ADVERTISINGID," + id; // looked up in place, as in a row
      assertThat(compact.rotatedAtMillis(row, row.lastIndexOf(',') + 1, row.length()))
          .isEqualTo(reference.get(id));
      byte[] utf8 = row.getBytes(StandardCharsets.UTF_8); // and in a row's bytes
      assertThat(
              compact.rotatedAtMillis(
                  utf8, utf8.length - id.getBytes(StandardCharsets.UTF_8).length, utf8.length))
          .as(id)
          .isEqualTo(reference.get(id));
    }
    for (String id : probes) {
      assertThat(compact.rotatedAtMillis(id, 0, id.length()))
          .as(id)
          .isEqualTo(reference.getOrDefault(id, RotatedBuckets.ABSENT));
      byte[] utf8 = ("x," + id).getBytes(StandardCharsets.UTF_8);
      assertThat(compact.rotatedAtMillis(utf8, 2, utf8.length))
          .as(id)
          .isEqualTo(reference.getOrDefault(id, RotatedBuckets.ABSENT));
    }
  }

  @Example
  void aMillionBuckets_areAllFound() {
    RotatedBuckets compact = new RotatedBuckets();
    for (int i = 0; i < 1_000_000; i++) {
      compact.merge("b" + Integer.toString(i, 36), i);
    }
    assertThat(compact.size()).isEqualTo(1_000_000);
    for (int i = 0; i < 1_000_000; i += 7) {
      String id = "b" + Integer.toString(i, 36);
      assertThat(compact.rotatedAtMillis(id, 0, id.length())).isEqualTo(i);
    }
    assertThat(compact.rotatedAtMillis("c0")).isEqualTo(RotatedBuckets.ABSENT);

    compact.clear(); // a retried poll starts again
    assertThat(compact.size()).isZero();
    assertThat(compact.rotatedAtMillis("b0")).isEqualTo(RotatedBuckets.ABSENT);
    compact.merge("b1", 7);
    compact.merge("b1", 3);
    assertThat(compact.rotatedAtMillis("b1")).isEqualTo(7);
    assertThat(compact.size()).isEqualTo(1);
  }

  @Provide
  Arbitrary<List<Merge>> merges() {
    return Combinators.combine(id(), Arbitraries.longs().between(-5, 5_000))
        .as(Merge::new)
        .list()
        .ofMaxSize(600);
  }

  @Provide
  Arbitrary<List<String>> ids() {
    return id().list().ofMaxSize(50);
  }

  private static Arbitrary<String> id() {
    return Arbitraries.strings().withChars("ab\u00e9\u4e2d").ofMinLength(0).ofMaxLength(5);
  }
}

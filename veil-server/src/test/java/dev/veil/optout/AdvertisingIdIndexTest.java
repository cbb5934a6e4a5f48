package dev.veil.optout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.salt.SaltSnapshot;
import dev.veil.salt.SaltSystem;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AdvertisingIdIndexTest {
  private static final SaltSnapshot SALTS =
      SaltSnapshot.initial(
          new SaltSystem(
              64, Instant.parse("2026-01-01T00:00:00Z"), filled(1), filled(2), filled(3)));

  @Test
  void candidates_ofAnAddedIdentitysAdvertisingId_includeItsHashPrefix() {
    AdvertisingIdIndex index = new AdvertisingIdIndex(SALTS, 0);
    byte[] hash = random(new SplittableRandom(1));
    index.add(hash);

    List<Integer> found = candidates(index, advertisingId(hash));

    assertThat(found)
        .containsExactly(((hash[0] & 0xff) << 16) | ((hash[1] & 0xff) << 8) | (hash[2] & 0xff));
    assertThat(candidates(index, hash)).isEmpty(); // the first-level hash is not an advertising id
  }

  @Test
  void candidates_ofIdsNotAdded_areAlmostAlwaysNone_andAddingAgainChangesNothing() {
    AdvertisingIdIndex index = new AdvertisingIdIndex(SALTS, 0);
    SplittableRandom random = new SplittableRandom(2);
    List<byte[]> added = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      added.add(random(random));
      index.add(added.get(i));
    }
    index.add(added.get(0));

    int falseCandidates = 0;
    for (int i = 0; i < 100_000; i++) {
      falseCandidates += candidates(index, random(random)).size();
    }
    assertThat(index.size()).isEqualTo(100_000);
    assertThat(falseCandidates).isLessThanOrEqualTo(2); // expected 10^10 / 2^40 ≈ 0.009
    for (byte[] hash : added) {
      assertThat(candidates(index, advertisingId(hash))).isNotEmpty();
    }
  }

  /** docs/spec.md 4: 8 bytes per slot, at most 3/4 full, so 10.7 to 21.3 bytes per record. */
  @Test
  void tableBytes_perRecord_stayWithinTheDesignBound_grownOrBuiltForTheCount() {
    SplittableRandom random = new SplittableRandom(3);
    AdvertisingIdIndex grown = new AdvertisingIdIndex(SALTS, 0);
    int records = 1_000_000;
    for (int i = 0; i < records; i++) {
      grown.add(random(random));
    }
    assertThat((double) grown.tableBytes() / records).isBetween(8 * 4 / 3.0, 8 * 8 / 3.0);
    // As built after a rotation for 10 million records: 2^24 slots, 13.4 bytes per record.
    assertThat(new AdvertisingIdIndex(SALTS, 10_000_000).tableBytes()).isEqualTo(8L << 24);
  }

  private static List<Integer> candidates(AdvertisingIdIndex index, byte[] id) {
    List<Integer> found = new ArrayList<>();
    index.candidates(id, found::add);
    return found;
  }

  private static byte[] advertisingId(byte[] hash) {
    return SALTS.hashWithSalt(hash, SALTS.bucketOf(hash));
  }

  private static byte[] random(SplittableRandom random) {
    byte[] b = new byte[32];
    random.nextBytes(b);
    return b;
  }

  private static byte[] filled(int start) {
    byte[] b = new byte[32];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (start + i);
    }
    return b;
  }
}

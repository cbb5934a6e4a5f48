package dev.veil.salt;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The previous salt a v3 map answer hashes with is the salt of the generation before, whether the
 * snapshot keeps it ({@link PreviousSalts}) or derives it, and the table holds only the buckets
 * rotated within the window of the latest rotation.
 */
class PreviousSaltsTest {
  private static final int BUCKETS = 1024;
  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant LATEST = CREATED.plus(Duration.ofDays(200));
  private static final byte[] SEED = filled(1);
  private static final byte[] PREFIX = filled(9);

  private static byte[] filled(int start) {
    byte[] b = new byte[32];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (start + i * 7);
    }
    return b;
  }

  private static byte[] expectedPreviousHash(int bucket, int generation) throws Exception {
    MessageDigest d = MessageDigest.getInstance("SHA-256");
    byte[] previousSalt =
        d.digest(ByteBuffer.allocate(40).put(SEED).putInt(bucket).putInt(generation - 1).array());
    d.update(PREFIX);
    return d.digest(previousSalt);
  }

  /**
   * Buckets 0–99 rotated twice, the second time 10 days before the latest rotation; 100–199 once,
   * 100 days before it (outside the window); 200–209 once, at the latest rotation.
   */
  private static SaltSnapshot snapshot() {
    SaltSystem system = new SaltSystem(BUCKETS, CREATED, SEED, filled(2), filled(3));
    List<BucketSalt> changes = new ArrayList<>();
    for (int b = 0; b < 100; b++) {
      changes.add(new BucketSalt(b, 1, LATEST.minus(Duration.ofDays(150))));
      changes.add(new BucketSalt(b, 2, LATEST.minus(Duration.ofDays(10))));
    }
    for (int b = 100; b < 200; b++) {
      changes.add(new BucketSalt(b, 1, LATEST.minus(Duration.ofDays(100))));
    }
    for (int b = 200; b < 210; b++) {
      changes.add(new BucketSalt(b, 1, LATEST));
    }
    return SaltSnapshot.initial(system).with(changes);
  }

  @Test
  void previousHash_isTheHashWithTheGenerationBefore_keptOrNot() throws Exception {
    SaltSnapshot snapshot = snapshot();
    for (int pass = 0; pass < 2; pass++) { // the first derives and keeps, the second reads
      for (int bucket : new int[] {0, 57, 99, 100, 150, 199, 200, 209}) {
        byte[] out = new byte[40];
        snapshot.hashWithPreviousSaltInto(PREFIX, bucket, out, 8);
        ByteBuffer hash = ByteBuffer.wrap(out, 8, 32).slice();
        assertThat(hash)
            .as("bucket %d, pass %d", bucket, pass)
            .isEqualTo(ByteBuffer.wrap(expectedPreviousHash(bucket, snapshot.generation(bucket))));
      }
    }
  }

  @Test
  void table_keepsOnlyTheBucketsRotatedWithinTheWindowOfTheLatestRotation() {
    long bytes = snapshot().previousSaltBytes();
    assertThat(bytes).isEqualTo(4L * BUCKETS + 110L * PreviousSalts.RECORD_BYTES);
  }

  @Test
  void table_holdsNothingBeforeAnyRotation() {
    SaltSystem system = new SaltSystem(BUCKETS, CREATED, SEED, filled(2), filled(3));
    assertThat(SaltSnapshot.initial(system).previousSaltBytes()).isZero();
  }
}

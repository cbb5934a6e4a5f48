package dev.veil.salt;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * Pins the derivation of salts and bucket ids (a change would change every advertising id and
 * bucket id of existing stores) against a straightforward computation with a fresh digest.
 */
class SaltDerivationTest {
  private static final byte[] SEED = filled(1);
  private static final byte[] BUCKET_ID_SECRET = filled(2);

  private static byte[] filled(int start) {
    byte[] b = new byte[32];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (start + i * 7);
    }
    return b;
  }

  private static byte[] sha256(byte[]... parts) throws Exception {
    MessageDigest d = MessageDigest.getInstance("SHA-256");
    for (byte[] p : parts) {
      d.update(p);
    }
    return d.digest();
  }

  private static byte[] expectedSalt(int bucket, int generation) throws Exception {
    return sha256(SEED, ByteBuffer.allocate(8).putInt(bucket).putInt(generation).array());
  }

  private static String expectedBucketId(int bucket) throws Exception {
    byte[] d = sha256(BUCKET_ID_SECRET, ByteBuffer.allocate(4).putInt(bucket).array());
    return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(d, 9));
  }

  @Test
  void initialSnapshot_matchesTheDefinition() throws Exception {
    int n = 1 << 17;
    SaltSystem system =
        new SaltSystem(n, Instant.parse("2026-01-01T00:00:00Z"), SEED, BUCKET_ID_SECRET, filled(3));
    SaltSnapshot snapshot = SaltSnapshot.initial(system);
    for (int bucket : new int[] {0, 1, 12345, n / 2, n - 1}) {
      assertThat(snapshot.salt(bucket)).as("salt of %d", bucket).isEqualTo(expectedSalt(bucket, 0));
      assertThat(snapshot.bucketId(bucket))
          .as("id of %d", bucket)
          .isEqualTo(expectedBucketId(bucket));
    }
  }

  @Test
  void rotatedSalt_usesTheGeneration() throws Exception {
    SaltSystem system =
        new SaltSystem(
            10, Instant.parse("2026-01-01T00:00:00Z"), SEED, BUCKET_ID_SECRET, filled(3));
    SaltSnapshot rotated =
        SaltSnapshot.initial(system)
            .with(java.util.List.of(new BucketSalt(4, 3, Instant.parse("2026-02-01T00:00:00Z"))));
    assertThat(rotated.salt(4)).isEqualTo(expectedSalt(4, 3));
    assertThat(rotated.salt(5)).isEqualTo(expectedSalt(5, 0));
    assertThat(rotated.bucketId(4)).isEqualTo(expectedBucketId(4));
  }
}

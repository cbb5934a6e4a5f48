package dev.veil.bench;

import dev.veil.core.crypto.AesGcm;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import javax.crypto.spec.SecretKeySpec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What it costs {@link AesGcm} to change keys. A token generate encrypts under three keys in a row
 * (site, master, refresh). The JDK re-expands the AES key schedule whenever a {@code Cipher} is
 * initialized with a key other than its last one (about 1.1 µs per encryption on the benchmark
 * machine), so {@code AesGcm} keeps a {@code Cipher} per key and thread. Both methods encrypt 100
 * bytes (the size of a token's payload), one always under the same key, the other alternating
 * between two keys: with the per-key ciphers they cost the same, and a gap between them means that
 * a key change got expensive again.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AesGcmKeySwitchBenchmark {
  private static final int PLAIN_BYTES = 100;

  private final SplittableRandom random = new SplittableRandom(3);
  private final byte[] plain = new byte[PLAIN_BYTES];
  private final byte[] out = new byte[PLAIN_BYTES + AesGcm.TAG_BYTES];
  private final byte[] iv = new byte[AesGcm.IV_BYTES];
  private SecretKeySpec first;
  private SecretKeySpec second;
  private boolean flip;

  @Setup
  public void setUp() {
    first = new SecretKeySpec(bytes(32), "AES");
    second = new SecretKeySpec(bytes(32), "AES");
    random.nextBytes(plain);
  }

  @Benchmark
  public int encryptSameKey() {
    return encrypt(first);
  }

  @Benchmark
  public int encryptAlternatingKeys() {
    flip = !flip;
    return encrypt(flip ? first : second);
  }

  private int encrypt(SecretKeySpec key) {
    random.nextBytes(
        iv); // a fresh IV, as in production (cheaper than SecureRandom, not measured here)
    return AesGcm.encrypt(key, iv, plain, 0, PLAIN_BYTES, out, 0);
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }
}

package dev.veil.bench;

import dev.veil.core.crypto.Sha256;
import dev.veil.core.identity.EmailNormalizer;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.core.text.Utf8;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The per-identifier work of a map request, which bounds its throughput: normalizing an email,
 * hashing it, and both together ({@link IdentityHash#parse}, the figure that {@code bench/run.sh}
 * turns into the identifiers-per-second limit of the machine). Each call takes the next of 1,024
 * varied addresses.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class IdentityBenchmark {
  private static final int SAMPLES = 1024;
  private static final int BATCH = 5_000;

  private String[] emails;
  private byte[][] normalizedUtf8;

  /** A map request's body of 5,000 of the addresses, as UTF-8: {"email":["…",…]}. */
  private byte[] batchBody;

  private int next;

  @Setup
  public void setUp() {
    emails = SampleEmails.generate(SAMPLES);
    normalizedUtf8 = new byte[SAMPLES][];
    for (int i = 0; i < SAMPLES; i++) {
      normalizedUtf8[i] =
          EmailNormalizer.normalize(emails[i]).orElseThrow().getBytes(StandardCharsets.UTF_8);
    }
    StringBuilder body = new StringBuilder("{\"email\":[");
    for (int i = 0; i < BATCH; i++) {
      body.append(i == 0 ? "\"" : ",\"").append(emails[i % SAMPLES]).append('"');
    }
    batchBody = body.append("]}").toString().getBytes(StandardCharsets.UTF_8);
  }

  private int nextIndex() {
    next = (next + 1) & (SAMPLES - 1);
    return next;
  }

  /** Trim, lower-case, validate, and the gmail.com rewrite. */
  @Benchmark
  public Optional<String> normalizeEmail() {
    return EmailNormalizer.normalize(emails[nextIndex()]);
  }

  /** SHA-256 of a normalized email's UTF-8 bytes (encoding excluded). */
  @Benchmark
  public byte[] sha256OfEmail() {
    return Sha256.digest(normalizedUtf8[nextIndex()]);
  }

  /** Normalize, encode and hash: what a map request does per identifier before the salts. */
  @Benchmark
  public IdentityHash parseEmail() {
    return IdentityHash.parse(IdentityInput.EMAIL, emails[nextIndex()]);
  }

  /**
   * The UTF-8 check of a map request's body that the server makes before parsing it ({@link
   * Utf8#malformedAt}), per identifier of a body of 5,000.
   */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int utf8CheckOfABatchBody() {
    return Utf8.malformedAt(batchBody, 0, batchBody.length);
  }
}

package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.salt.BucketSalt;
import dev.veil.salt.SaltSnapshot;
import dev.veil.salt.SaltSystem;
import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The buckets answer's chunks sealed as the v2 API sends them, opened with the JDK alone. */
class SealedChunkEncodingTest {
  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00.125Z");
  private static final byte[] SECRET_BYTES = new byte[32];
  private static final EnvelopeSecret SECRET = EnvelopeSecret.of(SECRET_BYTES);
  private static final long NONCE = 42;
  private static final byte[] IV = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  private static final NonceSource FIXED_IV = iv -> System.arraycopy(IV, 0, iv, 0, 12);

  private static SaltSnapshot snapshot(int buckets) {
    byte[] secret = new byte[32];
    return SaltSnapshot.initial(new SaltSystem(buckets, CREATED, secret, secret, secret))
        .with(List.of(new BucketSalt(1, 1, Instant.parse("2026-02-03T04:05:06Z"))));
  }

  /** The chunks as {@link BucketStream} makes them: JSON sized for the encoding, then encoded. */
  private static List<Buffer> sealedChunks(SaltSnapshot snapshot, ByteArrayOutputStream json) {
    ChunkEncoding encoding =
        new SealedChunkEncoding(V2Envelope.BASE64.responseSealer(NONCE, SECRET, NOW, FIXED_IV));
    BucketChunks chunks =
        new BucketChunks(
            snapshot,
            snapshot.updatedAfter(Instant.EPOCH),
            encoding.jsonBytesPerChunk(BucketChunks.MAX_BYTES));
    List<Buffer> out = new ArrayList<>();
    while (!chunks.ended()) {
      JsonBytes next = chunks.next();
      json.write(next.array(), 0, next.length());
      out.add(encoding.encode(next, chunks.ended()));
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 300, 335, 336, 337, 5_000, 20_000})
  void theChunksJoined_areTheOneShotSealOfTheJson_eachAtMost32KiB(int buckets) throws Exception {
    ByteArrayOutputStream json = new ByteArrayOutputStream();

    List<Buffer> chunks = sealedChunks(snapshot(buckets), json);

    ByteArrayOutputStream text = new ByteArrayOutputStream();
    chunks.forEach(c -> text.writeBytes(c.getBytes()));
    assertThat(text.toByteArray())
        .isEqualTo(
            V2Envelope.BASE64.sealResponse(json.toByteArray(), NONCE, SECRET, NOW, FIXED_IV));
    assertThat(chunks).allSatisfy(c -> assertThat(c.length()).isLessThanOrEqualTo(32 * 1024));
    assertThat(openWithTheJdk(text.toByteArray())).isEqualTo(json.toByteArray());
  }

  private static byte[] openWithTheJdk(byte[] text) throws Exception {
    byte[] raw = Base64.getDecoder().decode(text);
    Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
    cipher.init(
        Cipher.DECRYPT_MODE,
        new SecretKeySpec(SECRET_BYTES, "AES"),
        new GCMParameterSpec(128, raw, 0, 12));
    byte[] plain = cipher.doFinal(raw, 12, raw.length - 12);
    ByteBuffer header = ByteBuffer.wrap(plain, 0, 16);
    assertThat(header.getLong()).isEqualTo(NOW.toEpochMilli());
    assertThat(header.getLong()).isEqualTo(NONCE);
    return Arrays.copyOfRange(plain, 16, plain.length);
  }
}

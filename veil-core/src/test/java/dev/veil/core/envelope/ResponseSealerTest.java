package dev.veil.core.envelope;

import static dev.veil.core.envelope.V2Envelope.BASE64;
import static dev.veil.core.envelope.V2Envelope.BINARY;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.crypto.NonceSource;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ResponseSealerTest {
  private static final byte[] SECRET_BYTES = filled(32, 0x3C);
  private static final EnvelopeSecret SECRET = EnvelopeSecret.of(SECRET_BYTES);
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00.250Z");
  private static final long NONCE = 0x0123_4567_89AB_CDEFL;
  private static final byte[] IV = filled(12, 0x11);
  private static final NonceSource FIXED_IV = iv -> System.arraycopy(IV, 0, iv, 0, IV.length);

  private static byte[] filled(int n, int value) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) value);
    return b;
  }

  private static byte[] payload(int length, long seed) {
    byte[] b = new byte[length];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** Seals {@code payload} in pieces of the given sizes, the rest as the last piece. */
  static List<byte[]> pieces(V2Envelope wire, byte[] payload, int... sizes) {
    ResponseSealer sealer = wire.responseSealer(NONCE, SECRET, NOW, FIXED_IV);
    List<byte[]> out = new ArrayList<>();
    int at = 0;
    for (int size : sizes) {
      out.add(sealer.next(payload, at, size));
      at += size;
    }
    out.add(sealer.last(payload, at, payload.length - at));
    return out;
  }

  static byte[] joined(List<byte[]> pieces) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    pieces.forEach(all::writeBytes);
    return all.toByteArray();
  }

  private static byte[] oneShot(V2Envelope wire, byte[] payload) {
    return wire.sealResponse(payload, NONCE, SECRET, NOW, FIXED_IV);
  }

  /** Opens a BASE64 answer with nothing but the JDK: the plaintext, time and nonce included. */
  private static byte[] openWithTheJdk(byte[] text) throws Exception {
    byte[] raw = Base64.getDecoder().decode(text);
    Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
    cipher.init(
        Cipher.DECRYPT_MODE,
        new SecretKeySpec(SECRET_BYTES, "AES"),
        new GCMParameterSpec(128, raw, 0, 12));
    return cipher.doFinal(raw, 12, raw.length - 12);
  }

  // The first piece holds the IV and the sealed time and nonce (28 bytes) and whole 16-byte blocks
  // of ciphertext, so its payload's length decides what is carried: 0 bytes of payload leave 28
  // bytes (1 carried), 16 leave 44 (2 carried), 32 leave 60 (none); 5 releases no ciphertext yet.
  @ParameterizedTest
  @EnumSource(V2Envelope.class)
  void piecesThatCarryZeroOneOrTwoBytes_joinIntoTheOneShotAnswer(V2Envelope wire) {
    byte[] payload = payload(1_000, 1);
    for (int[] sizes :
        new int[][] {
          {0}, {16}, {32}, {5}, {0, 16, 16, 16}, {16, 1, 1, 1, 1}, {32, 17, 34}, {1, 2, 3, 4, 5}
        }) {
      assertThat(joined(pieces(wire, payload, sizes)))
          .as("pieces %s", Arrays.toString(sizes))
          .isEqualTo(oneShot(wire, payload));
    }
  }

  @Test
  void everyPieceButTheLast_isWholeBase64GroupsWithoutPadding() {
    List<byte[]> pieces = pieces(BASE64, payload(1_000, 2), 0, 16, 5, 100, 31, 0, 1);

    for (byte[] piece : pieces.subList(0, pieces.size() - 1)) {
      assertThat(piece.length % 4).isZero();
      assertThat(new String(piece, US_ASCII)).doesNotContain("=");
      Base64.getDecoder().decode(piece); // each piece alone is valid base64
    }
    assertThat(pieces.get(0)).hasSize(36); // 28 bytes of IV and header: 27 encoded, 1 carried
  }

  @Test
  void randomSplits_joinIntoTheOneShotAnswer_whichTheJdkOpens() throws Exception {
    Random random = new Random(20_260_301);
    int[] carriedAfterAPiece = new int[3];
    for (int round = 0; round < 500; round++) {
      byte[] payload = payload(random.nextInt(3_000), round);
      List<Integer> sizes = new ArrayList<>();
      int left = payload.length;
      while (left > 0 && random.nextInt(8) != 0) {
        int size = Math.min(left, random.nextInt(4) == 0 ? random.nextInt(3) : random.nextInt(400));
        sizes.add(size);
        left -= size;
        carriedAfterAPiece[carried(payload.length - left)]++;
      }

      byte[] text =
          joined(pieces(BASE64, payload, sizes.stream().mapToInt(Integer::intValue).toArray()));

      assertThat(text).as("round %d, pieces %s", round, sizes).isEqualTo(oneShot(BASE64, payload));
      byte[] plain = openWithTheJdk(text);
      ByteBuffer header = ByteBuffer.wrap(plain, 0, 16);
      assertThat(header.getLong()).isEqualTo(NOW.toEpochMilli());
      assertThat(header.getLong()).isEqualTo(NONCE);
      assertThat(Arrays.copyOfRange(plain, 16, plain.length)).isEqualTo(payload);
    }
    assertThat(Arrays.stream(carriedAfterAPiece).boxed())
        .as("pieces after which 0, 1, 2 bytes were carried")
        .allMatch(n -> n > 100);
  }

  /**
   * Bytes carried to the next piece once {@code payloadBytes} were given: what the IV and the
   * cipher's whole blocks of the time, nonce and payload leave over a multiple of 3.
   */
  private static int carried(int payloadBytes) {
    return (12 + (16 + payloadBytes) / 16 * 16) % 3;
  }

  @ParameterizedTest
  @EnumSource(V2Envelope.class)
  void anEmptyAnswerInOnePiece_isTheOneShotAnswer(V2Envelope wire) {
    assertThat(joined(pieces(wire, new byte[0]))).isEqualTo(oneShot(wire, new byte[0]));
  }

  @Test
  void noPieceIsLargerThanMaxPieceBytesOfItsPayload() {
    Random random = new Random(7);
    for (V2Envelope wire : V2Envelope.values()) {
      for (int round = 0; round < 200; round++) {
        byte[] payload = payload(random.nextInt(2_000), round);
        ResponseSealer sealer = wire.responseSealer(NONCE, SECRET, NOW, NonceSource.secure());
        int at = 0;
        while (true) {
          int size = Math.min(payload.length - at, random.nextInt(50));
          boolean last = at + size == payload.length;
          byte[] piece = last ? sealer.last(payload, at, size) : sealer.next(payload, at, size);
          assertThat(piece.length).isLessThanOrEqualTo(ResponseSealer.maxPieceBytes(size));
          at += size;
          if (last) {
            break;
          }
        }
      }
    }
  }

  @Test
  void maxPayloadBytes_isTheLargestPayloadWhosePiecesFit() {
    for (int piece : new int[] {84, 100, 4_096, 32 * 1024}) {
      int payload = ResponseSealer.maxPayloadBytes(piece);

      assertThat(ResponseSealer.maxPieceBytes(payload)).isLessThanOrEqualTo(piece);
      assertThat(ResponseSealer.maxPieceBytes(payload + 3)).isGreaterThan(piece);
    }
    assertThat(ResponseSealer.maxPayloadBytes(32 * 1024)).isEqualTo(24_515);
    assertThatThrownBy(() -> ResponseSealer.maxPayloadBytes(60))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void afterTheLastPiece_nothingMoreIsSealed() {
    ResponseSealer sealer = BASE64.responseSealer(NONCE, SECRET, NOW, NonceSource.secure());
    sealer.last(new byte[3], 0, 3);

    assertThatThrownBy(() -> sealer.next(new byte[1], 0, 1))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> sealer.last(new byte[1], 0, 1))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theAnswerOpensWithTheCodec_andEchoesTheNonce() {
    byte[] payload = "{\"status\":\"success\",\"body\":[]}".getBytes(US_ASCII);

    byte[] text = joined(pieces(BINARY, payload, 7, 9));

    assertThat(BINARY.openResponse(text, SECRET, NONCE).payloadBytes()).isEqualTo(payload);
    assertThat(BINARY.openResponse(text, SECRET, NONCE).timestamp()).isEqualTo(NOW);
  }
}

package dev.veil.core.envelope;

import dev.veil.core.crypto.AesGcm;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Seals one v2 answer piece by piece, for answers too large to hold whole: the pieces, joined in
 * order, are byte for byte what {@link V2Envelope#sealResponse} makes of the joined payload with
 * the same IV, time and nonce. Made by {@link V2Envelope#responseSealer}.
 *
 * <p>Design note. The first piece starts with the IV and the encrypted time and nonce; every piece
 * carries the ciphertext of its payload as far as the cipher has released it (the JDK's GCM
 * encryption releases whole 16-byte blocks and keeps a partial one for the next call); the last
 * piece ends with the rest and the 16-byte tag. In the {@link V2Envelope#BASE64} form each piece is
 * standard base64 of whole 3-byte groups: the 0 to 2 bytes left over are kept and put before the
 * next piece's, so the pieces join into one base64 text with its padding at the end only. So
 * between calls this holds one {@link Cipher} (its own: pieces of many answers interleave on one
 * thread), at most 15 bytes inside it and at most 2 here, never a piece. A piece of at most {@code
 * n} payload bytes is at most {@link #maxPieceBytes maxPieceBytes(n)} bytes.
 *
 * <p>Not thread-safe: one instance per answer, used by one thread at a time.
 */
public final class ResponseSealer {
  /** Timestamp (8 bytes) and nonce (8 bytes) before the payload, inside the encryption. */
  private static final int HEADER_BYTES = 16;

  /**
   * Bytes a piece may hold beyond its payload: 2 carried, the IV and the header (first piece), 15
   * released late by the cipher, the tag (last piece).
   */
  private static final int MAX_EXTRA_BYTES = 2 + AesGcm.IV_BYTES + HEADER_BYTES + 15 + 16;

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private final boolean base64;
  private final Cipher cipher;
  private final byte[] iv;
  private final long nowMillis;
  private final long nonce;
  private final byte[] carried = new byte[2];
  private int carriedLength;
  private boolean begun;
  private boolean ended;

  ResponseSealer(V2Envelope form, EnvelopeSecret secret, byte[] iv, Instant now, long nonce) {
    this.base64 = form == V2Envelope.BASE64;
    this.iv = iv.clone();
    this.nowMillis = now.toEpochMilli();
    this.nonce = nonce;
    try {
      cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(
          Cipher.ENCRYPT_MODE, secret.spec(), new GCMParameterSpec(AesGcm.TAG_BYTES * 8, iv));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is unavailable: " + e.getClass().getSimpleName(), e);
    }
  }

  /** The most bytes a piece of at most {@code payloadBytes} payload bytes can be, in any form. */
  public static int maxPieceBytes(int payloadBytes) {
    if (payloadBytes < 0) {
      throw new IllegalArgumentException("a payload length cannot be negative");
    }
    return 4 * ((payloadBytes + MAX_EXTRA_BYTES + 2) / 3);
  }

  /**
   * The most payload bytes per piece that keep every piece within {@code pieceBytes}: the inverse
   * of {@link #maxPieceBytes}.
   *
   * @throws IllegalArgumentException if even an empty payload's piece would not fit
   */
  public static int maxPayloadBytes(int pieceBytes) {
    int payload = pieceBytes / 4 * 3 - MAX_EXTRA_BYTES;
    if (payload < 0) {
      throw new IllegalArgumentException("pieces of " + pieceBytes + " bytes are too small");
    }
    return payload;
  }

  /**
   * The next piece: {@code payload[off, off+len)} sealed, as far as it can be released yet (ASCII
   * text in the {@link V2Envelope#BASE64} form; possibly empty).
   *
   * @throws IllegalStateException after {@link #last}
   */
  public byte[] next(byte[] payload, int off, int len) {
    return piece(payload, off, len, false);
  }

  /**
   * The last piece: {@code payload[off, off+len)} sealed, everything the cipher still holds, and
   * the tag. The sealer is spent afterwards.
   *
   * @throws IllegalStateException after {@link #last}
   */
  public byte[] last(byte[] payload, int off, int len) {
    return piece(payload, off, len, true);
  }

  private byte[] piece(byte[] payload, int off, int len, boolean last) {
    if (ended) {
      throw new IllegalStateException("the answer has been sealed to its end");
    }
    Objects.checkFromIndexSize(off, len, payload.length);
    ended = last;
    int header = begun ? 0 : HEADER_BYTES;
    byte[] raw =
        new byte
            [carriedLength + (begun ? 0 : AesGcm.IV_BYTES) + cipher.getOutputSize(len + header)];
    System.arraycopy(carried, 0, raw, 0, carriedLength);
    int n = carriedLength;
    try {
      if (!begun) {
        begun = true;
        System.arraycopy(iv, 0, raw, n, AesGcm.IV_BYTES);
        n += AesGcm.IV_BYTES;
        byte[] timeAndNonce = new byte[HEADER_BYTES];
        LONGS.set(timeAndNonce, 0, nowMillis);
        LONGS.set(timeAndNonce, 8, nonce);
        n += cipher.update(timeAndNonce, 0, HEADER_BYTES, raw, n);
      }
      n +=
          last
              ? cipher.doFinal(payload, off, len, raw, n)
              : cipher.update(payload, off, len, raw, n);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(
          "AES-GCM encryption failed: " + e.getClass().getSimpleName(), e);
    }
    if (!base64) {
      carriedLength = 0;
      return n == raw.length ? raw : Arrays.copyOf(raw, n);
    }
    int whole = last ? n : n - n % 3;
    carriedLength = n - whole;
    System.arraycopy(raw, whole, carried, 0, carriedLength);
    return Base64.getEncoder().encode(ByteBuffer.wrap(raw, 0, whole)).array();
  }
}

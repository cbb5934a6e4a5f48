package dev.veil.core.envelope;

import dev.veil.core.crypto.AesGcm;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeException.Reason;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.AEADBadTagException;

/**
 * The v2 envelope codec: seals and opens UID2-style encrypted request and response bodies (the byte
 * layout is in this package's documentation). The two constants are the two ways a body carries an
 * envelope: {@link #BASE64}, standard base64 text (what UID2's v2 endpoints take), and {@link
 * #BINARY}, the raw bytes (UID2's bodies of type {@code application/octet-stream}).
 *
 * <p>A server opens with {@link #openRequest} and answers a 200 with {@link #sealResponse}, or with
 * {@link #responseSealer} when the answer is too large to hold whole; a client seals with {@link
 * #sealRequest} and opens the answer with {@link #openResponse}. Every refusal is an {@link
 * EnvelopeException} with its reason; nothing else is thrown for any body.
 *
 * <p>Thread-safe: encryption uses {@link AesGcm}'s per-thread ciphers, so no call creates a {@code
 * Cipher} once a thread's are made. Allocation per call: the decoded or encoded body and the
 * plaintext (open) or the sealed body (seal), a 12-byte IV and what the JDK's cipher needs.
 */
public enum V2Envelope {
  /** The envelope's bytes as standard base64 with padding, the text of the HTTP body. */
  BASE64,
  /** The envelope's bytes themselves. */
  BINARY;

  /** The version byte that starts every request envelope. */
  public static final byte VERSION = 1;

  /** Bytes of a request envelope with an empty payload: version, IV, timestamp, nonce, tag. */
  public static final int MIN_REQUEST_BYTES = 1 + AesGcm.IV_BYTES + 16 + AesGcm.TAG_BYTES;

  /** Bytes of a response envelope with an empty payload: IV, timestamp, nonce, tag. */
  public static final int MIN_RESPONSE_BYTES = AesGcm.IV_BYTES + 16 + AesGcm.TAG_BYTES;

  /**
   * The narrowest skew that refuses no timestamp UID2's operator accepts. The operator accepts a
   * request whose timestamp is less than two minutes old (at most 119,999 ms) or at most 119,000 ms
   * ahead of its clock; opening with this skew accepts the same old requests, and future ones up to
   * 119,999 ms ahead.
   */
  public static final Duration UID2_ALLOWED_SKEW = Duration.ofMillis(119_999);

  /** Timestamp (8 bytes) and nonce (8 bytes) before the payload, inside the encryption. */
  private static final int HEADER_BYTES = 16;

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  /**
   * Opens a request envelope: decodes the body, checks its length, version and tag, then that its
   * timestamp is within {@code allowedSkew} of {@code now} (both edges accepted).
   *
   * @param body the HTTP body as received (ASCII text for {@link #BASE64})
   * @param secret the calling client's secret
   * @param now the server's clock
   * @param allowedSkew how far the request's timestamp may be from {@code now}, either way; see
   *     {@link #UID2_ALLOWED_SKEW}
   * @throws EnvelopeException for {@link Reason#BAD_BASE64}, {@link Reason#TOO_SHORT}, {@link
   *     Reason#BAD_VERSION}, {@link Reason#CANNOT_DECRYPT}, {@link Reason#STALE} or {@link
   *     Reason#FUTURE}, checked in that order
   * @throws IllegalArgumentException if {@code allowedSkew} is negative
   */
  public OpenedEnvelope openRequest(
      byte[] body, EnvelopeSecret secret, Instant now, Duration allowedSkew) {
    Objects.requireNonNull(secret, "secret");
    long nowMillis = now.toEpochMilli();
    long skew = skewMillis(allowedSkew);
    byte[] raw = decode(body);
    if (raw.length < MIN_REQUEST_BYTES) {
      throw new EnvelopeException(Reason.TOO_SHORT);
    }
    if (raw[0] != VERSION) {
      throw new EnvelopeException(Reason.BAD_VERSION);
    }
    byte[] plain = decrypt(secret, raw, 1);
    long timestamp = (long) LONGS.get(plain, 0);
    if (timestamp < saturatedAdd(nowMillis, -skew)) {
      throw new EnvelopeException(Reason.STALE);
    }
    if (timestamp > saturatedAdd(nowMillis, skew)) {
      throw new EnvelopeException(Reason.FUTURE);
    }
    return new OpenedEnvelope(timestamp, (long) LONGS.get(plain, 8), plain, HEADER_BYTES);
  }

  /**
   * Seals the answer to a request: {@code now}, the request's nonce and {@code payload}, under a
   * fresh IV from {@code ivs}. UID2 encrypts only answers of status 200; others go out as JSON.
   *
   * @param payload the answer's JSON, UTF-8
   * @param nonce the request's {@link OpenedEnvelope#nonce()}
   * @return the body: ASCII text for {@link #BASE64}
   */
  public byte[] sealResponse(
      byte[] payload, long nonce, EnvelopeSecret secret, Instant now, NonceSource ivs) {
    return seal(0, payload, 0, payload.length, nonce, secret, now, ivs);
  }

  /**
   * As {@link #sealResponse(byte[], long, EnvelopeSecret, Instant, NonceSource)}, of {@code
   * payload[off, off+len)}: the payload is read where it lies, not copied first.
   */
  public byte[] sealResponse(
      byte[] payload,
      int off,
      int len,
      long nonce,
      EnvelopeSecret secret,
      Instant now,
      NonceSource ivs) {
    Objects.checkFromIndexSize(off, len, payload.length);
    return seal(0, payload, off, len, nonce, secret, now, ivs);
  }

  /**
   * Seals the answer to a request in pieces, for a payload that is produced and sent bit by bit:
   * the pieces joined are what {@link #sealResponse} makes of the whole payload with the same IV.
   * Creates a {@code Cipher} (a few microseconds), which the sealer keeps to its end.
   *
   * @param nonce the request's {@link OpenedEnvelope#nonce()}
   */
  public ResponseSealer responseSealer(
      long nonce, EnvelopeSecret secret, Instant now, NonceSource ivs) {
    Objects.requireNonNull(secret, "secret");
    byte[] iv = new byte[AesGcm.IV_BYTES];
    ivs.nextBytes(iv);
    return new ResponseSealer(this, secret, iv, now, nonce);
  }

  /**
   * Seals a request: version, a fresh IV from {@code ivs}, then {@code now}, {@code nonce} and
   * {@code payload} encrypted. The caller keeps {@code nonce} to open the answer.
   *
   * @param nonce 8 random bytes as a big-endian {@code long}, fresh for each request
   * @return the body: ASCII text for {@link #BASE64}
   */
  public byte[] sealRequest(
      byte[] payload, long nonce, EnvelopeSecret secret, Instant now, NonceSource ivs) {
    return seal(1, payload, 0, payload.length, nonce, secret, now, ivs);
  }

  /**
   * Opens the answer to a request sealed with {@code expectedNonce}. The answer's timestamp is
   * returned, not checked (UID2's clients do not check it either).
   *
   * @throws EnvelopeException for {@link Reason#BAD_BASE64}, {@link Reason#TOO_SHORT}, {@link
   *     Reason#CANNOT_DECRYPT} or {@link Reason#NONCE_MISMATCH}, checked in that order
   */
  public OpenedEnvelope openResponse(byte[] body, EnvelopeSecret secret, long expectedNonce) {
    Objects.requireNonNull(secret, "secret");
    byte[] raw = decode(body);
    if (raw.length < MIN_RESPONSE_BYTES) {
      throw new EnvelopeException(Reason.TOO_SHORT);
    }
    byte[] plain = decrypt(secret, raw, 0);
    long nonce = (long) LONGS.get(plain, 8);
    if (nonce != expectedNonce) {
      throw new EnvelopeException(Reason.NONCE_MISMATCH);
    }
    return new OpenedEnvelope((long) LONGS.get(plain, 0), nonce, plain, HEADER_BYTES);
  }

  /**
   * Seals the answer to a v2 token refresh, whose request was not enveloped: a fresh IV from {@code
   * ivs}, then {@code payload} alone encrypted (no time, no nonce), as UID2's SDKs read it.
   *
   * @param key the refreshed token's {@code refresh_response_key}
   * @return the body: ASCII text for {@link #BASE64}
   */
  public byte[] sealRefreshAnswer(byte[] payload, EnvelopeSecret key, NonceSource ivs) {
    Objects.requireNonNull(key, "key");
    byte[] raw = new byte[Math.addExact(AesGcm.IV_BYTES + AesGcm.TAG_BYTES, payload.length)];
    byte[] iv = new byte[AesGcm.IV_BYTES];
    ivs.nextBytes(iv);
    System.arraycopy(iv, 0, raw, 0, AesGcm.IV_BYTES);
    AesGcm.encrypt(key.spec(), iv, payload, 0, payload.length, raw, AesGcm.IV_BYTES);
    return this == BASE64 ? Base64.getEncoder().encode(raw) : raw;
  }

  /**
   * Opens what {@link #sealRefreshAnswer} sealed and returns the payload.
   *
   * @throws EnvelopeException {@link Reason#BAD_BASE64}, {@link Reason#TOO_SHORT} or {@link
   *     Reason#CANNOT_DECRYPT}
   */
  public byte[] openRefreshAnswer(byte[] body, EnvelopeSecret key) {
    Objects.requireNonNull(key, "key");
    byte[] raw = decode(body);
    if (raw.length < AesGcm.IV_BYTES + AesGcm.TAG_BYTES) {
      throw new EnvelopeException(Reason.TOO_SHORT);
    }
    return decrypt(key, raw, 0);
  }

  private byte[] seal(
      int prefix,
      byte[] payload,
      int off,
      int len,
      long nonce,
      EnvelopeSecret secret,
      Instant now,
      NonceSource ivs) {
    Objects.requireNonNull(secret, "secret");
    int plainOffset = prefix + AesGcm.IV_BYTES;
    int plainLength = Math.addExact(HEADER_BYTES, len);
    byte[] raw = new byte[Math.addExact(plainOffset + AesGcm.TAG_BYTES, plainLength)];
    byte[] iv = new byte[AesGcm.IV_BYTES];
    ivs.nextBytes(iv);
    if (prefix == 1) {
      raw[0] = VERSION;
    }
    System.arraycopy(iv, 0, raw, prefix, AesGcm.IV_BYTES);
    byte[] header = new byte[HEADER_BYTES];
    LONGS.set(header, 0, now.toEpochMilli());
    LONGS.set(header, 8, nonce);
    // The payload is encrypted from where it lies, after the header: no copy of it first.
    AesGcm.encryptJoined(secret.spec(), iv, header, payload, off, len, raw, plainOffset);
    return this == BASE64 ? Base64.getEncoder().encode(raw) : raw;
  }

  private byte[] decode(byte[] body) {
    Objects.requireNonNull(body, "body");
    if (this == BINARY) {
      return body;
    }
    try {
      return Base64.getDecoder().decode(body);
    } catch (IllegalArgumentException notBase64) {
      throw new EnvelopeException(Reason.BAD_BASE64);
    }
  }

  /** Decrypts {@code raw} from its IV at {@code ivOffset} to its end (ciphertext, then tag). */
  private static byte[] decrypt(EnvelopeSecret secret, byte[] raw, int ivOffset) {
    byte[] iv = Arrays.copyOfRange(raw, ivOffset, ivOffset + AesGcm.IV_BYTES);
    int from = ivOffset + AesGcm.IV_BYTES;
    try {
      return AesGcm.decrypt(secret.spec(), iv, raw, from, raw.length - from);
    } catch (AEADBadTagException tagMismatch) {
      throw new EnvelopeException(Reason.CANNOT_DECRYPT);
    }
  }

  private static long skewMillis(Duration allowedSkew) {
    if (allowedSkew.isNegative()) {
      throw new IllegalArgumentException("allowed skew must not be negative");
    }
    try {
      return allowedSkew.toMillis();
    } catch (ArithmeticException beyondLong) {
      return Long.MAX_VALUE;
    }
  }

  /** {@code a + b}, held at the ends of the {@code long} range instead of wrapping around. */
  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    if (((a ^ sum) & (b ^ sum)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return sum;
  }
}

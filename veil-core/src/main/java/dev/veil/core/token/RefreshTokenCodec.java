package dev.veil.core.token;

import dev.veil.core.crypto.AesGcm;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.InvalidTokenException.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encodes and decodes refresh tokens (UID2 "V3" refresh layout, version byte 0x70). Only Veil
 * servers read them; they never contain the email, the identity hash or the advertising id.
 *
 * <h2>Design note: layout</h2>
 *
 * <p>All integers big-endian, times in epoch milliseconds; 124 bytes, written as standard base64
 * with padding (168 characters):
 *
 * <pre>
 *   0  1  identity prefix (0x03 email, 0x07 phone)     } header, clear,
 *   1  1  version 0x70                                 } authenticated as AAD
 *   2  4  refresh key id                               }
 *   6 12  IV
 *  18 90  ciphertext (AES-256-GCM, refresh key) of:
 *           0  8  expires          8  8 created        16 13 operator info
 *          29 16  publisher info  45  4 privacy bits   49  8 established
 *          57  1  identity prefix (must equal byte 0)  58 32 first-level hash
 * 108 16  tag
 * </pre>
 *
 * <p>Decoding rejects, with {@link InvalidTokenException}: any text that is not exactly 168
 * canonical standard base64 characters; an unknown version or prefix; an unknown key id; a key
 * outside the refresh keyset; a tag failure; an inner prefix that differs from the header's.
 *
 * <p>The codec checks neither the token's expiry nor the key's lifetime: callers compare {@link
 * RefreshTokenPayload#expires()} with their clock, and pass a {@link KeyLookup} that knows only the
 * keys still allowed to decrypt.
 *
 * <p>Thread-safe if its {@link NonceSource} is.
 */
public final class RefreshTokenCodec {
  /** The version byte of this layout. */
  public static final byte VERSION = (byte) 0x70;

  /** Length of a token in bytes, before base64. */
  public static final int TOKEN_BYTES = 124;

  /** Length of a token as text. */
  public static final int TOKEN_CHARS = 168;

  /** Length of a {@link #responseKey} in bytes (an AES-256 key). */
  public static final int RESPONSE_KEY_BYTES = 32;

  /** One HMAC-SHA256 per thread, initialised with each call's key. */
  private static final ThreadLocal<Mac> HMACS =
      ThreadLocal.withInitial(
          () -> {
            try {
              return Mac.getInstance("HmacSHA256");
            } catch (GeneralSecurityException e) {
              throw new IllegalStateException("HMAC-SHA256 is unavailable", e);
            }
          });

  /** What {@link #responseKey} puts before the token's text in its HMAC input. */
  private static final byte[] RESPONSE_KEY_LABEL =
      "veil v2 refresh response key".getBytes(StandardCharsets.US_ASCII);

  private static final int PLAIN =
      8
          + 8
          + OperatorInfo.BYTES
          + PublisherInfo.BYTES
          + 4
          + 8
          + 1
          + RefreshTokenPayload.FIRST_LEVEL_HASH_BYTES;

  /** Each thread's work buffer for {@link #encodeAscii}: the token, then the plaintext. */
  private static final ThreadLocal<byte[]> WORK =
      ThreadLocal.withInitial(() -> new byte[TOKEN_BYTES + PLAIN]);

  private final NonceSource nonces;

  /** A codec that draws its IVs from {@code nonces} (use {@link NonceSource#secure()}). */
  public RefreshTokenCodec(NonceSource nonces) {
    this.nonces = Objects.requireNonNull(nonces, "nonces");
  }

  /**
   * Encrypts {@code p} with {@code refreshKey}. Choosing an active key is the caller's job.
   *
   * @throws IllegalArgumentException if {@code refreshKey} is not in the refresh keyset
   */
  public String encode(RefreshTokenPayload p, EncryptionKey refreshKey) {
    return new String(encodeAscii(p, refreshKey), StandardCharsets.US_ASCII);
  }

  /**
   * Like {@link #encode}, the token text as US-ASCII bytes ({@value #TOKEN_CHARS} of them), for
   * writers that put it straight into a response without a {@code String} in between.
   */
  public byte[] encodeAscii(RefreshTokenPayload p, EncryptionKey refreshKey) {
    if (refreshKey.siteId() != EncryptionKey.REFRESH_SITE_ID) {
      throw new IllegalArgumentException("a refresh token must be encrypted with a refresh key");
    }
    TokenHeader header = new TokenHeader(p.identityType(), VERSION, refreshKey.id());
    byte[] iv = new byte[AesGcm.IV_BYTES];
    nonces.nextBytes(iv);
    // One work buffer per thread: the token [0, 124), then the plaintext [124, 214).
    byte[] work = WORK.get();
    try {
      writePlain(ByteBuffer.wrap(work, TOKEN_BYTES, PLAIN), p);
      header.writeTo(work);
      GcmSegment.seal(
          refreshKey, iv, header.toBytes(), work, TOKEN_BYTES, PLAIN, work, TokenHeader.BYTES);
      return TokenText.STANDARD_PADDED.encodeAscii(work, 0, TOKEN_BYTES);
    } finally {
      Arrays.fill(
          work,
          TOKEN_BYTES,
          TOKEN_BYTES + PLAIN,
          (byte) 0); // no plaintext stays behind in the buffer
    }
  }

  /**
   * Decrypts and parses a token.
   *
   * @throws InvalidTokenException if the token is malformed, of another version, names an unknown
   *     key, or fails authentication (see the class comment); never any other exception for bad
   *     input
   */
  public RefreshTokenPayload decode(String token, KeyLookup keys) {
    byte[] bytes = TokenText.STANDARD_PADDED.decode(token, TOKEN_BYTES);
    TokenHeader header = TokenHeader.read(bytes, VERSION);
    EncryptionKey key = keys.byId(header.keyId());
    if (key == null) {
      throw new InvalidTokenException(Reason.UNKNOWN_KEY);
    }
    if (key.siteId() != EncryptionKey.REFRESH_SITE_ID) {
      throw new InvalidTokenException(Reason.TAMPERED);
    }
    ByteBuffer plain =
        ByteBuffer.wrap(
            GcmSegment.open(
                key, header.toBytes(), bytes, TokenHeader.BYTES, TOKEN_BYTES - TokenHeader.BYTES));
    Instant expires = Instant.ofEpochMilli(plain.getLong());
    Instant created = Instant.ofEpochMilli(plain.getLong());
    OperatorInfo operator = OperatorInfo.readFrom(plain);
    PublisherInfo publisher = PublisherInfo.readFrom(plain);
    int privacyBits = plain.getInt();
    Instant established = Instant.ofEpochMilli(plain.getLong());
    if (IdentityType.fromPrefix(plain.get()) != header.identityType()) {
      throw new InvalidTokenException(Reason.TAMPERED);
    }
    byte[] firstLevelHash = new byte[RefreshTokenPayload.FIRST_LEVEL_HASH_BYTES];
    plain.get(firstLevelHash);
    return new RefreshTokenPayload(
        header.identityType(),
        expires,
        created,
        operator,
        publisher,
        privacyBits,
        established,
        firstLevelHash);
  }

  /**
   * The key that seals the v2 answer to a refresh of {@code token} (UID2's {@code
   * refresh_response_key}): HMAC-SHA256 under the secret of the refresh key that encrypted the
   * token, of the ASCII label {@code "veil v2 refresh response key"} followed by the token's text
   * as US-ASCII bytes. It is derived, not stored in the token, so the token keeps this layout and
   * works on v1 and v2 alike; only the server (which holds the key) and whoever saw the answer that
   * issued the token know it. Reads only the token's clear header: call it for a token this codec
   * encoded or {@link #decode decoded}. The returned array is the caller's; never log it.
   *
   * @throws InvalidTokenException as {@link #decode} for a token whose header is malformed, of
   *     another version, or names a key that {@code keys} does not know or that is not a refresh
   *     key
   */
  public static byte[] responseKey(String token, KeyLookup keys) {
    byte[] bytes = TokenText.STANDARD_PADDED.decode(token, TOKEN_BYTES);
    EncryptionKey key = keys.byId(TokenHeader.read(bytes, VERSION).keyId());
    if (key == null) {
      throw new InvalidTokenException(Reason.UNKNOWN_KEY);
    }
    if (key.siteId() != EncryptionKey.REFRESH_SITE_ID) {
      throw new InvalidTokenException(Reason.TAMPERED);
    }
    byte[] secret = key.secret();
    try {
      Mac mac = HMACS.get(); // looking the algorithm up costs more than the HMAC itself
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update(RESPONSE_KEY_LABEL);
      return mac.doFinal(token.getBytes(StandardCharsets.US_ASCII));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 is unavailable", e);
    } finally {
      Arrays.fill(secret, (byte) 0);
    }
  }

  private static void writePlain(ByteBuffer out, RefreshTokenPayload p) {
    out.putLong(p.expires().toEpochMilli()).putLong(p.created().toEpochMilli());
    p.operator().writeTo(out);
    p.publisher().writeTo(out);
    out.putInt(p.privacyBits())
        .putLong(p.established().toEpochMilli())
        .put(p.identityType().prefix());
    p.putFirstLevelHash(out);
  }
}

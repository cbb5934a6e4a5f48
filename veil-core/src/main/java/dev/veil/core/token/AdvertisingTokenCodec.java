package dev.veil.core.token;

import dev.veil.core.crypto.AesGcm;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.token.InvalidTokenException.Reason;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Objects;

/**
 * Encodes and decodes advertising tokens (UID2 "V4" layout, version byte 0x80), the tokens that
 * publishers pass unchanged to bidders.
 *
 * <h2>Design note: layout</h2>
 *
 * <p>All integers big-endian, times in epoch milliseconds; 163 bytes, written as base64url
 * without padding (218 characters):
 *
 * <pre>
 *  0   1  identity prefix (0x03 email, 0x07 phone)      } header, clear,
 *  1   1  version 0x80                                  } authenticated as
 *  2   4  master key id                                 } AAD of the outer layer
 *  6  12  outer IV
 * 18 129  outer ciphertext (AES-256-GCM, master key) of:
 *           0   8  expires
 *           8   8  created
 *          16  13  operator info
 *          29   4  site key id
 *          33  12  inner IV
 *          45  68  inner ciphertext (AES-256-GCM, site key; AAD = header + site key id) of:
 *                    0  4 site id   4  8 publisher id   12 4 client key id   16 4 privacy bits
 *                   20  8 established   28 8 refreshed   36 32 advertising id
 *         113  16  inner tag
 * 147 16  outer tag
 * </pre>
 *
 * <p>Decoding rejects, with {@link InvalidTokenException}: any text that is not exactly 218
 * canonical base64url characters; an unknown version or prefix; an unknown master or site key id;
 * a master key outside the master keyset, or a site key whose site id differs from the site id
 * inside; any tag failure. Because the header is AAD, changing the prefix, version or a key id is
 * detected and never yields a payload.
 *
 * <p>The codec checks neither the token's expiry nor the keys' lifetimes: callers compare {@link
 * AdvertisingTokenPayload#expires()} with their clock, and pass a {@link KeyLookup} that knows only
 * the keys still allowed to decrypt.
 *
 * <p>Thread-safe if its {@link NonceSource} is. Encoding draws two IVs, outer first, then inner.
 */
public final class AdvertisingTokenCodec {
  /** The version byte of this layout. */
  public static final byte VERSION = (byte) 0x80;
  /** Length of a token in bytes, before base64url. */
  public static final int TOKEN_BYTES = 163;
  /** Length of a token as text. */
  public static final int TOKEN_CHARS = 218;

  private static final int INNER_PLAIN = 4 + 8 + 4 + 4 + 8 + 8 + AdvertisingTokenPayload.ADVERTISING_ID_BYTES;
  private static final int INNER_SEALED = INNER_PLAIN + GcmSegment.OVERHEAD;
  private static final int OUTER_HEAD = 8 + 8 + OperatorInfo.BYTES + 4;
  private static final int OUTER_PLAIN = OUTER_HEAD + INNER_SEALED;

  private final NonceSource nonces;

  /** A codec that draws its IVs from {@code nonces} (use {@link NonceSource#secure()}). */
  public AdvertisingTokenCodec(NonceSource nonces) {
    this.nonces = Objects.requireNonNull(nonces, "nonces");
  }

  /**
   * Encrypts {@code p} with {@code masterKey} (outer layer) and {@code siteKey} (inner layer).
   * Choosing keys that are active is the caller's job.
   *
   * @throws IllegalArgumentException if {@code masterKey} is not in the master keyset, or {@code
   *     siteKey}'s site id is not {@code p.publisher().siteId()} or is a reserved keyset
   */
  public String encode(AdvertisingTokenPayload p, EncryptionKey masterKey, EncryptionKey siteKey) {
    checkKeys(p, masterKey, siteKey);
    TokenHeader header = new TokenHeader(p.identityType(), VERSION, masterKey.id());
    byte[] outerIv = nextIv();
    byte[] innerIv = nextIv();
    byte[] token = new byte[TOKEN_BYTES];
    header.writeTo(token);
    byte[] plain = new byte[OUTER_PLAIN + INNER_PLAIN];
    writeInnerPlain(ByteBuffer.wrap(plain, OUTER_PLAIN, INNER_PLAIN), p);
    GcmSegment.seal(siteKey, innerIv, innerAad(header, siteKey.id()), plain, OUTER_PLAIN, INNER_PLAIN, plain, OUTER_HEAD);
    writeOuterHead(ByteBuffer.wrap(plain, 0, OUTER_HEAD), p, siteKey.id());
    GcmSegment.seal(masterKey, outerIv, header.toBytes(), plain, 0, OUTER_PLAIN, token, TokenHeader.BYTES);
    return TokenText.URL_UNPADDED.encode(token);
  }

  /**
   * Decrypts and parses a token.
   *
   * @throws InvalidTokenException if the token is malformed, of another version, names an unknown
   *     key, or fails authentication (see the class comment); never any other exception for bad
   *     input
   */
  public AdvertisingTokenPayload decode(String token, KeyLookup keys) {
    byte[] bytes = TokenText.URL_UNPADDED.decode(token, TOKEN_BYTES);
    TokenHeader header = TokenHeader.read(bytes, VERSION);
    EncryptionKey masterKey = knownKey(keys, header.keyId());
    if (masterKey.siteId() != EncryptionKey.MASTER_SITE_ID) {
      throw new InvalidTokenException(Reason.TAMPERED);
    }
    ByteBuffer outer = ByteBuffer.wrap(
        GcmSegment.open(masterKey, header.toBytes(), bytes, TokenHeader.BYTES, TOKEN_BYTES - TokenHeader.BYTES));
    Instant expires = Instant.ofEpochMilli(outer.getLong());
    Instant created = Instant.ofEpochMilli(outer.getLong());
    OperatorInfo operator = OperatorInfo.readFrom(outer);
    int siteKeyId = outer.getInt();
    EncryptionKey siteKey = knownKey(keys, siteKeyId);
    if (isReservedKeyset(siteKey.siteId())) {
      throw new InvalidTokenException(Reason.TAMPERED);
    }
    ByteBuffer inner = ByteBuffer.wrap(
        GcmSegment.open(siteKey, innerAad(header, siteKeyId), outer.array(), OUTER_HEAD, INNER_SEALED));
    PublisherInfo publisher = PublisherInfo.readFrom(inner);
    if (publisher.siteId() != siteKey.siteId()) {
      throw new InvalidTokenException(Reason.TAMPERED);
    }
    int privacyBits = inner.getInt();
    Instant established = Instant.ofEpochMilli(inner.getLong());
    Instant refreshed = Instant.ofEpochMilli(inner.getLong());
    byte[] advertisingId = new byte[AdvertisingTokenPayload.ADVERTISING_ID_BYTES];
    inner.get(advertisingId);
    return new AdvertisingTokenPayload(header.identityType(), expires, created, operator, publisher, privacyBits,
        established, refreshed, advertisingId);
  }

  private static void checkKeys(AdvertisingTokenPayload p, EncryptionKey masterKey, EncryptionKey siteKey) {
    if (masterKey.siteId() != EncryptionKey.MASTER_SITE_ID) {
      throw new IllegalArgumentException("the outer key must belong to the master keyset");
    }
    if (siteKey.siteId() != p.publisher().siteId() || isReservedKeyset(siteKey.siteId())) {
      throw new IllegalArgumentException("the inner key must belong to the publisher's site keyset");
    }
  }

  private static boolean isReservedKeyset(int siteId) {
    return siteId == EncryptionKey.MASTER_SITE_ID || siteId == EncryptionKey.REFRESH_SITE_ID;
  }

  private static EncryptionKey knownKey(KeyLookup keys, int keyId) {
    EncryptionKey key = keys.byId(keyId);
    if (key == null) {
      throw new InvalidTokenException(Reason.UNKNOWN_KEY);
    }
    return key;
  }

  /** The inner layer's AAD: the token header followed by the site key id (10 bytes). */
  private static byte[] innerAad(TokenHeader header, int siteKeyId) {
    return ByteBuffer.allocate(TokenHeader.BYTES + 4).put(header.toBytes()).putInt(siteKeyId).array();
  }

  private static void writeInnerPlain(ByteBuffer out, AdvertisingTokenPayload p) {
    p.publisher().writeTo(out);
    out.putInt(p.privacyBits())
        .putLong(p.established().toEpochMilli())
        .putLong(p.refreshed().toEpochMilli())
        .put(p.advertisingId());
  }

  private static void writeOuterHead(ByteBuffer out, AdvertisingTokenPayload p, int siteKeyId) {
    out.putLong(p.expires().toEpochMilli()).putLong(p.created().toEpochMilli());
    p.operator().writeTo(out);
    out.putInt(siteKeyId);
  }

  private byte[] nextIv() {
    byte[] iv = new byte[AesGcm.IV_BYTES];
    nonces.nextBytes(iv);
    return iv;
  }
}

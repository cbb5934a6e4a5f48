package dev.veil.core.token;

import dev.veil.core.crypto.AesGcm;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.token.InvalidTokenException.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * Encodes and decodes advertising tokens (UID2 "V4" layout, version byte 0x80), the tokens that
 * publishers pass unchanged to bidders.
 *
 * <h2>Design note: layout</h2>
 *
 * <p>All integers big-endian, times in epoch milliseconds; 163 bytes, written as base64url without
 * padding (218 characters):
 *
 * <pre>
 *  0   1  identity prefix (0x03 email, 0x07 phone)      } header, clear,
 *  1   1  version 0x80                                  } not AAD; protected
 *  2   4  master key id                                 } as described below
 *  6  12  outer IV
 * 18 129  outer ciphertext (AES-256-GCM, master key, no AAD) of:
 *           0   8  expires
 *           8   8  created
 *          16  13  operator info
 *          29   4  site key id
 *          33  12  inner IV
 *          45  68  inner ciphertext (AES-256-GCM, site key, no AAD) of:
 *                    0  4 site id   4  8 publisher id   12 4 client key id
 *                   16  1 identity prefix again (top byte of the privacy bits field)
 *                   17  3 privacy bits (the caller's 24 bits)
 *                   20  8 established   28 8 refreshed   36 32 advertising id
 *         113  16  inner tag
 * 147 16  outer tag
 * </pre>
 *
 * <h2>Design note: no AAD, and the prefix bound inside</h2>
 *
 * <p>Bidders must be able to read these tokens with UID2's own bidder SDKs, since the layout is
 * UID2's. Those SDKs open both GCM layers without additional authenticated data, so this codec uses
 * none either: the bytes are exactly what a UID2 V4 reader expects. (Refresh tokens, read only by
 * Veil, keep their header as AAD; see {@link RefreshTokenCodec}.)
 *
 * <p>Without AAD the clear header is protected as follows. A changed version byte is refused as
 * unsupported. A changed master key id names another key (the tag fails) or an unknown one. That
 * leaves the identity prefix, which selects nothing: so the encoder writes it a second time, into
 * the top byte (bits 24 to 31) of the 4-byte privacy bits field of the inner plaintext, under both
 * tags, and the decoder requires that byte to equal byte 0 of the token ({@link
 * InvalidTokenException.Reason#TAMPERED} otherwise). Turning an email token into a phone token
 * therefore needs the site key, not just the master key that every bidder holds. The caller's
 * privacy bits must fit in the low 24 bits ({@link #encode} refuses the rest), and decoding returns
 * them with the top byte cleared, so a payload round-trips unchanged. UID2 SDKs ignore the high
 * bits of the privacy bits; they see a positive value with 0x03 or 0x07 on top.
 *
 * <p>What AAD used to add and is given up: the inner layer is bound to the secret of the site key,
 * not to its id, and the site key id itself is covered by the outer tag only. A changed site key id
 * still fails the inner tag (another secret) or is unknown; only two ids sharing one secret could
 * not be told apart, which a key generator never produces. As with UID2, anyone holding the master
 * key (every bidder) can rewrite the outer plaintext (expiry included); that was true with AAD as
 * well.
 *
 * <p>Decoding rejects, with {@link InvalidTokenException}: any text that is not exactly 218
 * canonical base64url characters; an unknown version or prefix; an unknown master or site key id; a
 * master key outside the master keyset, or a site key whose site id differs from the site id
 * inside; any tag failure; an inner prefix byte that differs from byte 0.
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

  private static final int INNER_PLAIN =
      4 + 8 + 4 + 4 + 8 + 8 + AdvertisingTokenPayload.ADVERTISING_ID_BYTES;
  private static final int INNER_SEALED = INNER_PLAIN + GcmSegment.OVERHEAD;
  private static final int OUTER_HEAD = 8 + 8 + OperatorInfo.BYTES + 4;
  private static final int OUTER_PLAIN = OUTER_HEAD + INNER_SEALED;

  /** Where the plaintexts start in the work buffer, after the token. */
  private static final int PLAIN_AT = TOKEN_BYTES;

  private static final int WORK_BYTES = PLAIN_AT + OUTER_PLAIN + INNER_PLAIN;

  /** Each thread's work buffer for {@link #encodeAscii}: the token and both plaintexts. */
  private static final ThreadLocal<byte[]> WORK =
      ThreadLocal.withInitial(() -> new byte[WORK_BYTES]);

  /** Neither layer has additional authenticated data: UID2's SDKs use none. */
  private static final byte[] NO_AAD = new byte[0];

  /** The bits of the privacy bits field that belong to the caller; the top byte is the prefix. */
  private static final int CALLER_PRIVACY_BITS = 0x00FF_FFFF;

  private static final int PREFIX_SHIFT = 24;

  private final NonceSource nonces;

  /** A codec that draws its IVs from {@code nonces} (use {@link NonceSource#secure()}). */
  public AdvertisingTokenCodec(NonceSource nonces) {
    this.nonces = Objects.requireNonNull(nonces, "nonces");
  }

  /**
   * Encrypts {@code p} with {@code masterKey} (outer layer) and {@code siteKey} (inner layer).
   * Choosing keys that are active is the caller's job.
   *
   * @throws IllegalArgumentException if {@code masterKey} is not in the master keyset, {@code
   *     siteKey}'s site id is not {@code p.publisher().siteId()} or is a reserved keyset, or {@code
   *     p.privacyBits()} uses its top byte (bits 24 to 31), which carries the identity prefix
   */
  public String encode(AdvertisingTokenPayload p, EncryptionKey masterKey, EncryptionKey siteKey) {
    return new String(encodeAscii(p, masterKey, siteKey), StandardCharsets.US_ASCII);
  }

  /**
   * Like {@link #encode}, the token text as US-ASCII bytes ({@value #TOKEN_CHARS} of them), for
   * writers that put it straight into a response without a {@code String} in between.
   */
  public byte[] encodeAscii(
      AdvertisingTokenPayload p, EncryptionKey masterKey, EncryptionKey siteKey) {
    checkKeys(p, masterKey, siteKey);
    if ((p.privacyBits() & ~CALLER_PRIVACY_BITS) != 0) {
      throw new IllegalArgumentException(
          "privacy bits of an advertising token must fit in 24 bits");
    }
    TokenHeader header = new TokenHeader(p.identityType(), VERSION, masterKey.id());
    byte[] outerIv = nextIv();
    byte[] innerIv = nextIv();
    // One work buffer per thread: the token [0, 163), then the outer plaintext [163, 292), then
    // the inner plaintext [292, 360), which is sealed straight into its place in the outer one.
    byte[] work = WORK.get();
    try {
      header.writeTo(work);
      writeInnerPlain(ByteBuffer.wrap(work, PLAIN_AT + OUTER_PLAIN, INNER_PLAIN), p);
      GcmSegment.seal(
          siteKey,
          innerIv,
          NO_AAD,
          work,
          PLAIN_AT + OUTER_PLAIN,
          INNER_PLAIN,
          work,
          PLAIN_AT + OUTER_HEAD);
      writeOuterHead(ByteBuffer.wrap(work, PLAIN_AT, OUTER_HEAD), p, siteKey.id());
      GcmSegment.seal(
          masterKey, outerIv, NO_AAD, work, PLAIN_AT, OUTER_PLAIN, work, TokenHeader.BYTES);
      return TokenText.URL_UNPADDED.encodeAscii(work, 0, TOKEN_BYTES);
    } finally {
      Arrays.fill(work, PLAIN_AT, WORK_BYTES, (byte) 0); // no plaintext stays behind in the buffer
    }
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
    ByteBuffer outer =
        ByteBuffer.wrap(
            GcmSegment.open(
                masterKey, NO_AAD, bytes, TokenHeader.BYTES, TOKEN_BYTES - TokenHeader.BYTES));
    Instant expires = Instant.ofEpochMilli(outer.getLong());
    Instant created = Instant.ofEpochMilli(outer.getLong());
    OperatorInfo operator = OperatorInfo.readFrom(outer);
    int siteKeyId = outer.getInt();
    EncryptionKey siteKey = knownKey(keys, siteKeyId);
    if (isReservedKeyset(siteKey.siteId())) {
      throw new InvalidTokenException(Reason.TAMPERED);
    }
    ByteBuffer inner =
        ByteBuffer.wrap(GcmSegment.open(siteKey, NO_AAD, outer.array(), OUTER_HEAD, INNER_SEALED));
    PublisherInfo publisher = PublisherInfo.readFrom(inner);
    if (publisher.siteId() != siteKey.siteId()) {
      throw new InvalidTokenException(Reason.TAMPERED);
    }
    int privacyField = inner.getInt();
    if ((privacyField >>> PREFIX_SHIFT) != (header.identityType().prefix() & 0xFF)) {
      throw new InvalidTokenException(Reason.TAMPERED);
    }
    int privacyBits = privacyField & CALLER_PRIVACY_BITS;
    Instant established = Instant.ofEpochMilli(inner.getLong());
    Instant refreshed = Instant.ofEpochMilli(inner.getLong());
    byte[] advertisingId = new byte[AdvertisingTokenPayload.ADVERTISING_ID_BYTES];
    inner.get(advertisingId);
    return new AdvertisingTokenPayload(
        header.identityType(),
        expires,
        created,
        operator,
        publisher,
        privacyBits,
        established,
        refreshed,
        advertisingId);
  }

  private static void checkKeys(
      AdvertisingTokenPayload p, EncryptionKey masterKey, EncryptionKey siteKey) {
    if (masterKey.siteId() != EncryptionKey.MASTER_SITE_ID) {
      throw new IllegalArgumentException("the outer key must belong to the master keyset");
    }
    if (siteKey.siteId() != p.publisher().siteId() || isReservedKeyset(siteKey.siteId())) {
      throw new IllegalArgumentException(
          "the inner key must belong to the publisher's site keyset");
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

  private static void writeInnerPlain(ByteBuffer out, AdvertisingTokenPayload p) {
    p.publisher().writeTo(out);
    // The identity prefix goes into the top byte, which encode has checked to be free.
    out.putInt(((p.identityType().prefix() & 0xFF) << PREFIX_SHIFT) | p.privacyBits())
        .putLong(p.established().toEpochMilli())
        .putLong(p.refreshed().toEpochMilli());
    p.putAdvertisingId(out);
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

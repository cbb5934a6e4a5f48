package dev.veil.core.token;

import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.InvalidTokenException.Reason;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Base64;

/**
 * Reads advertising tokens in UID2's V4 layout whoever wrote them: Veil's nodes ({@link
 * AdvertisingTokenCodec}) and the sharers that encrypt raw ids with UID2's SDKs. It is what a
 * bidder or a receiver of shared tokens uses; Veil's server keeps the strict codec for its own
 * tokens.
 *
 * <p>Accepted beyond what {@link AdvertisingTokenCodec#decode} accepts, as UID2's readers do: a raw
 * id of 32 to 64 bytes (UID2's raw ids are 33); base64url without padding (as V4 writers spell it)
 * or standard base64 with padding (as UID2's readers also take it), each spelled canonically; and a
 * privacy field whose top byte is 0 (writers other than Veil's do not repeat the identity prefix
 * there). A top byte that is neither 0 nor the token's prefix is still {@link Reason#TAMPERED}, so
 * a token Veil wrote cannot be turned from email into phone without its site key. {@link #decode}
 * checks the keys as the codec does: the outer key must be a master key, the inner one a key of the
 * site named inside. {@link #decodeByKeyIdOnly} is for a reader whose keys carry no keyset, as
 * UID2's bidder key answer ({@code /v2/key/bidstream}) names none; it gives up what UID2's own
 * readers give up: a holder of a master key (every bidder) could seal the inner layer with a master
 * key too and write any site id there. Stateless and thread-safe.
 */
public final class SharedTokenDecoder {
  private static final int MIN_ID_BYTES = 32;
  private static final int MAX_ID_BYTES = 64;

  /** The inner plaintext before the raw id: publisher info, privacy, established, refreshed. */
  private static final int INNER_HEAD = 4 + 8 + 4 + 4 + 8 + 8;

  private static final int OUTER_HEAD = 8 + 8 + OperatorInfo.BYTES + 4;
  private static final int FIXED_BYTES =
      TokenHeader.BYTES + GcmSegment.OVERHEAD + OUTER_HEAD + GcmSegment.OVERHEAD + INNER_HEAD;
  private static final int MAX_TEXT = 4 * ((FIXED_BYTES + MAX_ID_BYTES + 2) / 3);
  private static final byte[] NO_AAD = new byte[0];

  private SharedTokenDecoder() {}

  /**
   * Decrypts {@code token} with {@code keys}.
   *
   * @throws InvalidTokenException {@link Reason#MALFORMED} for text that is not base64 of a token
   *     of a possible length; {@link Reason#UNSUPPORTED_VERSION} for another layout; {@link
   *     Reason#UNKNOWN_KEY} for a master or site key {@code keys} does not know; {@link
   *     Reason#TAMPERED} for a tag that fails or a field that contradicts its key or header
   */
  public static SharedToken decode(String token, KeyLookup keys) {
    return decode(token, keys, true);
  }

  /**
   * Like {@link #decode}, for keys known by id alone: the site ids of the keys {@code keys} returns
   * are not read. Every tag and every other check stays.
   *
   * @throws InvalidTokenException as {@link #decode} does, except for the keyset checks
   */
  public static SharedToken decodeByKeyIdOnly(String token, KeyLookup keys) {
    return decode(token, keys, false);
  }

  private static SharedToken decode(String token, KeyLookup keys, boolean checkKeysets) {
    byte[] bytes = bytes(token);
    TokenHeader header = TokenHeader.read(bytes, AdvertisingTokenCodec.VERSION);
    EncryptionKey masterKey = known(keys, header.keyId());
    if (checkKeysets && masterKey.siteId() != EncryptionKey.MASTER_SITE_ID) {
      throw new InvalidTokenException(Reason.TAMPERED);
    }
    byte[] outerPlain =
        GcmSegment.open(
            masterKey, NO_AAD, bytes, TokenHeader.BYTES, bytes.length - TokenHeader.BYTES);
    ByteBuffer outer = ByteBuffer.wrap(outerPlain);
    Instant expires = Instant.ofEpochMilli(outer.getLong());
    Instant created = Instant.ofEpochMilli(outer.getLong());
    OperatorInfo.readFrom(outer);
    int siteKeyId = outer.getInt();
    EncryptionKey siteKey = known(keys, siteKeyId);
    if (checkKeysets
        && (siteKey.siteId() == EncryptionKey.MASTER_SITE_ID
            || siteKey.siteId() == EncryptionKey.REFRESH_SITE_ID)) {
      throw new InvalidTokenException(Reason.TAMPERED);
    }
    ByteBuffer inner =
        ByteBuffer.wrap(
            GcmSegment.open(
                siteKey, NO_AAD, outerPlain, OUTER_HEAD, outerPlain.length - OUTER_HEAD));
    PublisherInfo publisher = PublisherInfo.readFrom(inner);
    if (checkKeysets && publisher.siteId() != siteKey.siteId()) {
      throw new InvalidTokenException(Reason.TAMPERED);
    }
    int privacyField = inner.getInt();
    int top = privacyField >>> 24;
    if (top != 0 && top != (header.identityType().prefix() & 0xFF)) {
      throw new InvalidTokenException(Reason.TAMPERED);
    }
    Instant established = Instant.ofEpochMilli(inner.getLong());
    inner.getLong(); // refreshed
    byte[] rawId = new byte[inner.remaining()];
    inner.get(rawId);
    return new SharedToken(
        header.identityType(),
        expires,
        created,
        publisher.siteId(),
        siteKeyId,
        privacyField & 0x00FF_FFFF,
        established,
        rawId);
  }

  private static byte[] bytes(String token) {
    if (token == null || token.length() > MAX_TEXT) {
      throw new InvalidTokenException(Reason.MALFORMED);
    }
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(token.replace('-', '+').replace('_', '/'));
    } catch (IllegalArgumentException notBase64) {
      throw new InvalidTokenException(Reason.MALFORMED);
    }
    if (!isCanonical(token, bytes)) {
      throw new InvalidTokenException(Reason.MALFORMED);
    }
    int idBytes = bytes.length - FIXED_BYTES;
    if (idBytes < MIN_ID_BYTES || idBytes > MAX_ID_BYTES) {
      throw new InvalidTokenException(Reason.MALFORMED);
    }
    if (IdentityType.fromPrefix(bytes[0]) == null) {
      throw new InvalidTokenException(Reason.MALFORMED);
    }
    return bytes;
  }

  /**
   * Whether {@code text} is {@code bytes} spelled as V4 writers spell tokens, base64url without
   * padding, or as UID2's readers also take them, standard base64 with padding: a changed character
   * in the unused low bits of the last one, or padding added, is a changed token too (docs/spec.md
   * 3).
   */
  private static boolean isCanonical(String text, byte[] bytes) {
    return text.equals(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes))
        || text.equals(Base64.getEncoder().encodeToString(bytes));
  }

  private static EncryptionKey known(KeyLookup keys, int keyId) {
    EncryptionKey key = keys.byId(keyId);
    if (key == null) {
      throw new InvalidTokenException(Reason.UNKNOWN_KEY);
    }
    return key;
  }
}

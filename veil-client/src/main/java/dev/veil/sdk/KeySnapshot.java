package dev.veil.sdk;

import dev.veil.core.token.EncryptionKey;
import dev.veil.core.token.InvalidTokenException;
import dev.veil.core.token.KeyLookup;
import dev.veil.core.token.SharedToken;
import dev.veil.core.token.SharedTokenDecoder;
import dev.veil.sdk.internal.BidstreamRules;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The keys a {@link TokenDecryptor} holds, when they were fetched and, over v2, the server's rules
 * for bidders; and the decryption of one token against them. Immutable: a refresh builds a new one.
 *
 * <p>The checks, in order: the token's layout and version; its master key, then its site key, known
 * and unexpired; both tags; the token's expiry; the domain or app name, if one is given; over v2
 * its lifetime and creation time against {@link BidstreamRules}. Tokens of any V4 writer are read
 * ({@link SharedTokenDecoder}: Veil's own, and those sharers make with UID2's SDKs, whose raw ids
 * may be 33 bytes). Over v1 the keysets are checked (each key's site id is known); over v2 keys are
 * found by id alone, as the answer names no keyset ({@link SharedTokenDecoder#decodeByKeyIdOnly}).
 */
final class KeySnapshot {
  static final KeySnapshot NONE = new KeySnapshot(Map.of(), null, null);

  private final Map<Integer, EncryptionKey> byId;
  private final Instant fetchedAt;
  private final BidstreamRules rules;

  private KeySnapshot(Map<Integer, EncryptionKey> byId, Instant fetchedAt, BidstreamRules rules) {
    this.byId = byId;
    this.fetchedAt = fetchedAt;
    this.rules = rules;
  }

  /**
   * @param rules the v2 answer's rules, or null for keys from v1
   */
  static KeySnapshot of(Collection<EncryptionKey> keys, Instant fetchedAt, BidstreamRules rules) {
    Map<Integer, EncryptionKey> byId = new HashMap<>();
    for (EncryptionKey key : keys) {
      byId.put(key.id(), key);
    }
    return new KeySnapshot(Map.copyOf(byId), fetchedAt, rules);
  }

  /** Null before the first fetch. */
  Instant fetchedAt() {
    return fetchedAt;
  }

  int size() {
    return byId.size();
  }

  /**
   * Decrypts and checks {@code token} at {@code now}.
   *
   * @param domainOrAppName the name the token's site must list, or null for no such check
   */
  DecryptionResult decrypt(String token, String domainOrAppName, Instant now) {
    Lookups lookups = new Lookups(now);
    SharedToken payload;
    try {
      payload =
          rules == null
              ? SharedTokenDecoder.decode(token, lookups)
              : SharedTokenDecoder.decodeByKeyIdOnly(token, lookups);
    } catch (InvalidTokenException e) {
      return rejection(e.reason(), lookups);
    }
    if (!now.isBefore(payload.expires())) {
      return DecryptionResult.rejected(
          DecryptionStatus.EXPIRED, "token expired at " + payload.expires());
    }
    int siteId = payload.siteId();
    if (domainOrAppName != null && (rules == null || !rules.siteAllows(siteId, domainOrAppName))) {
      return DecryptionResult.rejected(
          DecryptionStatus.DOMAIN_OR_APP_NAME_CHECK_FAILED,
          rules == null
              ? "no domain or app names are known: keys fetched over v1 (give the client its"
                  + " secret)"
              : "the token's site " + siteId + " does not list this domain or app name");
    }
    if (rules != null && rules.livesTooLong(payload.created(), payload.expires())) {
      return DecryptionResult.rejected(
          DecryptionStatus.INVALID_TOKEN_LIFETIME,
          "the token lives "
              + Duration.between(payload.created(), payload.expires()).toSeconds()
              + " s from creation to expiry, over the server's limit of "
              + rules.maxLifetimeSeconds()
              + " s");
    }
    if (rules != null && rules.createdTooFarAhead(payload.created(), now)) {
      return DecryptionResult.rejected(
          DecryptionStatus.INVALID_TOKEN_LIFETIME,
          "the token was created at "
              + payload.created()
              + ", more than the allowed clock skew of "
              + rules.allowedSkewSeconds()
              + " s ahead");
    }
    return DecryptionResult.success(payload);
  }

  private DecryptionResult rejection(InvalidTokenException.Reason reason, Lookups lookups) {
    switch (reason) {
      case MALFORMED:
        return DecryptionResult.rejected(
            DecryptionStatus.MALFORMED,
            "not an advertising token (length, alphabet or identity prefix)");
      case UNSUPPORTED_VERSION:
        return DecryptionResult.rejected(
            DecryptionStatus.UNSUPPORTED_VERSION, "unsupported token version");
      case UNKNOWN_KEY:
        return unknownKey(lookups);
      case TAMPERED:
      default:
        return DecryptionResult.rejected(
            DecryptionStatus.TAMPERED,
            "authentication failed: the token was altered or not issued by this Veil");
    }
  }

  private DecryptionResult unknownKey(Lookups lookups) {
    if (lookups.hitExpiredKey) {
      return DecryptionResult.rejected(
          DecryptionStatus.EXPIRED, "the key that encrypted the token has expired");
    }
    if (rules == null) {
      return DecryptionResult.rejected(
          DecryptionStatus.UNKNOWN_KEY,
          "the token names a key this decryptor does not hold (keys fetched at " + fetchedAt + ")");
    }
    // The site key's id is inside the outer layer: it is looked up only once the master key was
    // found, so one lookup means the master key is missing.
    return lookups.calls == 1
        ? DecryptionResult.rejected(
            DecryptionStatus.NOT_AUTHORIZED_FOR_MASTER_KEY,
            "the token's master key is not among the keys the server gave (fetched at "
                + fetchedAt
                + ")")
        : DecryptionResult.rejected(
            DecryptionStatus.NOT_AUTHORIZED_FOR_KEY,
            "the token's site key is not among the keys the server gave (fetched at "
                + fetchedAt
                + "): its site does not share with this bidder, or the key is newer");
  }

  /** Finds unexpired keys for one decryption and remembers what it was asked. */
  private final class Lookups implements KeyLookup {
    private final Instant now;
    int calls;
    boolean hitExpiredKey;

    Lookups(Instant now) {
      this.now = now;
    }

    @Override
    public EncryptionKey byId(int keyId) {
      calls++;
      EncryptionKey key = byId.get(keyId);
      if (key != null && key.isExpired(now)) {
        hitExpiredKey = true;
        return null;
      }
      return key;
    }
  }
}

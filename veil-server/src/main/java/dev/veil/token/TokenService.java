package dev.veil.token;

import dev.veil.common.ApiProfile;
import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.core.token.AdvertisingTokenPayload;
import dev.veil.core.token.EncryptionKey;
import dev.veil.core.token.InvalidTokenException;
import dev.veil.core.token.OperatorInfo;
import dev.veil.core.token.PublisherInfo;
import dev.veil.core.token.RefreshTokenCodec;
import dev.veil.core.token.RefreshTokenPayload;
import dev.veil.identity.IdentityMapper;
import dev.veil.identity.MappedIdentity;
import dev.veil.key.KeyRing;
import dev.veil.key.KeyService;
import dev.veil.optout.OptOutService;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Issues, refreshes and validates tokens (docs/spec.md 1.3 to 1.5). Pure computation over in-memory
 * snapshots (keys, salts, opt-outs): no I/O, safe on an event loop, thread-safe.
 */
public final class TokenService {
  /** Operator info written into tokens: this is a public operator of version 1. */
  static final OperatorInfo OPERATOR = new OperatorInfo(0, (byte) 'P', 1, 0);

  private final IdentityMapper mapper;
  private final OptOutService optOuts;
  private final KeyService keys;
  private final TestIdentities tests;
  private final TokenLifetimes lifetimes;
  private final ApiProfile profile;
  private final AdvertisingTokenCodec advertisingCodec;
  private final RefreshTokenCodec refreshCodec;
  private final Clock clock;

  public TokenService(
      IdentityMapper mapper,
      OptOutService optOuts,
      KeyService keys,
      TestIdentities tests,
      TokenLifetimes lifetimes,
      ApiProfile profile,
      AdvertisingTokenCodec advertisingCodec,
      RefreshTokenCodec refreshCodec,
      Clock clock) {
    this.mapper = mapper;
    this.optOuts = optOuts;
    this.keys = keys;
    this.tests = tests;
    this.lifetimes = lifetimes;
    this.profile = profile;
    this.advertisingCodec = advertisingCodec;
    this.refreshCodec = refreshCodec;
    this.clock = clock;
  }

  /** Generates a token pair for {@code identity} on behalf of a client of {@code siteId}. */
  public GenerateOutcome generate(IdentityHash identity, int siteId, long clientId) {
    return generate(identity, siteId, clientId, profile.issuesTokensWhenOptedOut());
  }

  /**
   * Like {@link #generate(IdentityHash, int, long)}, but an opted-out identity gets {@link
   * GenerateOutcome.OptedOut} in every profile: the v2 API's generate, whose callers must send
   * UID2's {@code optout_check=1}.
   */
  public GenerateOutcome generateCheckingOptOut(IdentityHash identity, int siteId, long clientId) {
    return generate(identity, siteId, clientId, false);
  }

  private GenerateOutcome generate(
      IdentityHash identity, int siteId, long clientId, boolean issueWhenOptedOut) {
    MappedIdentity mapped = mapper.map(identity);
    if (isOptedOut(mapped.firstLevelHash()) && !issueWhenOptedOut) {
      return new GenerateOutcome.OptedOut();
    }
    Instant now = now();
    PublisherInfo publisher = new PublisherInfo(siteId, 0L, (int) clientId);
    return new GenerateOutcome.Generated(issue(identity.type(), mapped, publisher, 0, now, now));
  }

  /** Refreshes a token pair; checks in the order Invalid, Expired, OptedOut (docs/spec.md 1.4). */
  public RefreshOutcome refresh(String refreshToken) {
    KeyRing ring = keys.ring();
    RefreshTokenPayload payload;
    try {
      payload = refreshCodec.decode(refreshToken, ring);
    } catch (InvalidTokenException e) {
      return new RefreshOutcome.Invalid();
    }
    Instant now = now();
    if (!now.isBefore(payload.expires())) {
      return new RefreshOutcome.Expired();
    }
    byte[] flh = payload.firstLevelHash();
    if (optOuts.isOptedOut(flh) || tests.endsChainOnRefresh(flh)) {
      return new RefreshOutcome.OptedOut();
    }
    MappedIdentity mapped = mapper.mapFirstLevel(flh);
    return new RefreshOutcome.Refreshed(
        issue(
            payload.identityType(),
            mapped,
            payload.publisher(),
            payload.privacyBits(),
            payload.established(),
            now));
  }

  /**
   * The key that seals the v2 answer to a refresh of {@code refreshToken} (UID2's {@code
   * refresh_response_key}, {@link RefreshTokenCodec#responseKey}), for a token that {@link
   * #generate} or {@link #refresh} issued or that {@link #refresh} accepted; empty when the token's
   * header does not name a known refresh key. The array is the caller's; never log it.
   */
  public Optional<byte[]> refreshResponseKey(String refreshToken) {
    try {
      return Optional.of(RefreshTokenCodec.responseKey(refreshToken, keys.ring()));
    } catch (InvalidTokenException e) {
      return Optional.empty();
    }
  }

  /**
   * True only when {@code identity} is a test identity and the advertising token decrypts to the
   * advertising id it maps to now; false for anything else, including a token that does not decode.
   */
  public boolean validate(String advertisingToken, IdentityHash identity) {
    if (advertisingToken == null || !tests.validates(identity)) {
      return false;
    }
    AdvertisingTokenPayload payload;
    try {
      payload = advertisingCodec.decode(advertisingToken, keys.ring());
    } catch (InvalidTokenException e) {
      return false;
    }
    return payload.identityType() == identity.type()
        && MessageDigest.isEqual(payload.advertisingId(), mapper.map(identity).advertisingId());
  }

  private boolean isOptedOut(byte[] flh) {
    return optOuts.isOptedOut(flh) || tests.isAlwaysOptedOut(flh);
  }

  private IdentityTokens issue(
      IdentityType type,
      MappedIdentity mapped,
      PublisherInfo publisher,
      int privacyBits,
      Instant established,
      Instant now) {
    KeyRing ring = keys.ring();
    EncryptionKey master = active(ring, EncryptionKey.MASTER_SITE_ID, now);
    EncryptionKey site = active(ring, publisher.siteId(), now);
    EncryptionKey refreshKey = active(ring, EncryptionKey.REFRESH_SITE_ID, now);
    Instant identityExpires = now.plus(lifetimes.advertising());
    Instant refreshExpires = now.plus(lifetimes.refresh());
    byte[] advertising =
        advertisingCodec.encodeAscii(
            new AdvertisingTokenPayload(
                type,
                identityExpires,
                now,
                OPERATOR,
                publisher,
                privacyBits,
                established,
                now,
                mapped.advertisingId()),
            master,
            site);
    byte[] refresh =
        refreshCodec.encodeAscii(
            new RefreshTokenPayload(
                type,
                refreshExpires,
                now,
                OPERATOR,
                publisher,
                privacyBits,
                established,
                mapped.firstLevelHash()),
            refreshKey);
    return new IdentityTokens(
        advertising, refresh, identityExpires, now.plus(lifetimes.refreshFrom()), refreshExpires);
  }

  private static EncryptionKey active(KeyRing ring, int siteId, Instant now) {
    return ring.activeKey(siteId, now)
        .orElseThrow(
            () ->
                new VeilException(
                    ErrorCode.UNAVAILABLE, "no active encryption key for keyset " + siteId));
  }

  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }
}

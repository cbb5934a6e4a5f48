package dev.veil.identity;

import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.core.identity.InvalidIdentifierException;
import dev.veil.optout.OptOutService;
import java.util.function.Predicate;

/**
 * The identity map operations of the public API (docs/spec.md 1.6): one identifier or a batch,
 * opt-outs applied. Pure computation over in-memory snapshots; thread-safe.
 */
public final class IdentityMapService {
  private final IdentityMapper mapper;
  private final OptOutService optOuts;
  private final Predicate<byte[]> alwaysOptedOut;

  /**
   * @param alwaysOptedOut first-level hashes treated as opted out without a record (the UID2
   *     profile's test identities)
   */
  public IdentityMapService(
      IdentityMapper mapper, OptOutService optOuts, Predicate<byte[]> alwaysOptedOut) {
    this.mapper = mapper;
    this.optOuts = optOuts;
    this.alwaysOptedOut = alwaysOptedOut;
  }

  /**
   * Maps one raw identifier of the given input kind.
   *
   * @param respectOptOut whether an opted-out identity is reported as {@link
   *     MapResult.Unmapped#OPTOUT} (always for batches; for single maps unless the UID2 profile is
   *     on)
   */
  public MapResult map(IdentityInput input, String value, boolean respectOptOut) {
    IdentityHash identity;
    try {
      identity = IdentityHash.parse(input, value);
    } catch (InvalidIdentifierException e) {
      return MapResult.Unmapped.INVALID;
    }
    return map(identity, respectOptOut);
  }

  /** A mapper for the identifiers of one batch request; opt-outs always apply. */
  public MapBatch batch() {
    return new MapBatch(mapper, optOuts, alwaysOptedOut);
  }

  public MapResult map(IdentityHash identity, boolean respectOptOut) {
    MappedIdentity mapped = mapper.map(identity);
    if (respectOptOut && isOptedOut(mapped.firstLevelHash())) {
      return MapResult.Unmapped.OPTOUT;
    }
    return new MapResult.Mapped(mapped.advertisingId(), mapper.bucketId(mapped.bucketIndex()));
  }

  private boolean isOptedOut(byte[] flh) {
    return optOuts.isOptedOut(flh) || alwaysOptedOut.test(flh);
  }
}

package dev.veil.identity;

import dev.veil.core.crypto.Sha256;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.core.identity.InvalidIdentifierException;
import dev.veil.optout.OptOutService;
import dev.veil.salt.SaltSnapshot;
import java.time.Instant;
import java.util.function.Predicate;

/**
 * Maps the identifiers of one batch request (docs/spec.md 1.6), one after the other, against one
 * salt snapshot, with opt-outs applied. Created by {@link IdentityMapService#batch()}.
 *
 * <p>Design note. A batch maps up to thousands of identifiers on an event loop, so this works like
 * a cursor instead of returning a result object per identifier: {@link #map} answers the outcome
 * and leaves the advertising id in a buffer of its own ({@link #advertisingId()}) and the bucket in
 * {@link #copyBucketId}, both valid until the next call. Apart from parsing the identifier, mapping
 * one allocates nothing; a v3 answer's previous id ({@link #previousAdvertisingId}) derives the
 * previous salt into a small new array. The snapshot is read once, so every identifier of a batch
 * is mapped with the same salts even if a rotation lands meanwhile.
 *
 * <p>Not thread-safe: one instance per request, on the request's thread.
 */
public final class MapBatch {
  /** What became of one identifier. */
  public enum Outcome {
    MAPPED,
    /** The identifier does not normalize or is not an accepted hash form. */
    INVALID,
    /** The identity has opted out. */
    OPTOUT
  }

  private final IdentityMapper mapper;
  private final OptOutService optOuts;
  private final Predicate<byte[]> alwaysOptedOut;
  private final SaltSnapshot snapshot;
  private final byte[] firstLevelHash = new byte[Sha256.BYTES];
  private final byte[] advertisingId = new byte[Sha256.BYTES];
  private final byte[] previousId = new byte[Sha256.BYTES];
  private int bucket;

  MapBatch(IdentityMapper mapper, OptOutService optOuts, Predicate<byte[]> alwaysOptedOut) {
    this.mapper = mapper;
    this.optOuts = optOuts;
    this.alwaysOptedOut = alwaysOptedOut;
    this.snapshot = mapper.snapshot();
  }

  /** Maps one raw identifier of the given kind. */
  public Outcome map(IdentityInput input, String value) {
    IdentityHash identity;
    try {
      identity = IdentityHash.parse(input, value);
    } catch (InvalidIdentifierException e) {
      return Outcome.INVALID;
    }
    bucket = mapper.mapInto(identity, snapshot, firstLevelHash, advertisingId);
    if (optOuts.isOptedOut(firstLevelHash) || alwaysOptedOut.test(firstLevelHash)) {
      return Outcome.OPTOUT;
    }
    return Outcome.MAPPED;
  }

  /**
   * The 32-byte advertising id of the last {@link Outcome#MAPPED} identifier; overwritten by the
   * next call.
   */
  public byte[] advertisingId() {
    return advertisingId;
  }

  /**
   * The advertising id of the last {@link Outcome#MAPPED} identifier under its bucket's previous
   * salt, if that salt was replaced within {@link SaltSnapshot#PREVIOUS_ID_WINDOW} before {@code
   * now}; else null. The 32 bytes are overwritten by the next call.
   */
  public byte[] previousAdvertisingId(Instant now) {
    if (!snapshot.hasRecentPrevious(bucket, now.toEpochMilli())) {
      return null;
    }
    snapshot.hashWithPreviousSaltInto(firstLevelHash, bucket, previousId, 0);
    return previousId;
  }

  /**
   * When the last {@link Outcome#MAPPED} identifier should be mapped again, in epoch seconds, as
   * seen at {@code now} (docs/spec.md 5).
   */
  public long refreshFromSeconds(Instant now) {
    return snapshot.refreshFromSeconds(bucket, now.toEpochMilli());
  }

  /**
   * Copies the bucket id of the last {@link Outcome#MAPPED} identifier ({@link
   * SaltSnapshot#BUCKET_ID_CHARS} bytes).
   */
  public void copyBucketId(byte[] out, int off) {
    snapshot.copyBucketId(bucket, out, off);
  }
}

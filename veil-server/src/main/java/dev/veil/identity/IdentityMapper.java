package dev.veil.identity;

import dev.veil.core.crypto.Sha256;
import dev.veil.core.identity.IdentityHash;
import dev.veil.salt.SaltService;
import dev.veil.salt.SaltSnapshot;

/**
 * Derives advertising ids (docs/spec.md section 2). From the 32-byte identity hash: first-level
 * hash = SHA-256(identity hash || first-level salt); bucket = chosen from the first-level hash, so
 * fixed for ever; advertising id = SHA-256(first-level hash || current salt of the bucket). Pure
 * computation on the current salt snapshot: no I/O, thread-safe.
 */
public final class IdentityMapper {
  private final SaltService salts;
  private final byte[] firstLevelSalt;

  public IdentityMapper(SaltService salts) {
    this.salts = salts;
    this.firstLevelSalt = salts.current().system().firstLevelSalt();
  }

  public MappedIdentity map(IdentityHash identity) {
    return mapFirstLevel(firstLevelHash(identity));
  }

  public byte[] firstLevelHash(IdentityHash identity) {
    byte[] firstLevelHash = new byte[Sha256.BYTES];
    identity.digestWithSuffix(firstLevelSalt, firstLevelHash, 0);
    return firstLevelHash;
  }

  /** Maps from a first-level hash (as carried in a refresh token) with the current salts. */
  public MappedIdentity mapFirstLevel(byte[] firstLevelHash) {
    SaltSnapshot snapshot = salts.current();
    int bucket = snapshot.bucketOf(firstLevelHash);
    byte[] advertisingId = snapshot.hashWithSalt(firstLevelHash, bucket);
    return new MappedIdentity(firstLevelHash, bucket, advertisingId);
  }

  /** The salts that {@link #mapInto} maps with; read once per batch, so a batch sees one state. */
  public SaltSnapshot snapshot() {
    return salts.current();
  }

  /**
   * Maps {@code identity} with {@code snapshot} into the caller's 32-byte arrays and returns the
   * bucket: the whole derivation of docs/spec.md 2 (first-level hash, bucket, advertising id)
   * without allocating, for loops over many identities.
   */
  public int mapInto(
      IdentityHash identity, SaltSnapshot snapshot, byte[] firstLevelHash, byte[] advertisingId) {
    identity.digestWithSuffix(firstLevelSalt, firstLevelHash, 0);
    int bucket = snapshot.bucketOf(firstLevelHash);
    snapshot.hashWithSaltInto(firstLevelHash, bucket, advertisingId, 0);
    return bucket;
  }

  /** The opaque id of a bucket (stable for the life of the store). */
  public String bucketId(int bucketIndex) {
    return salts.current().bucketId(bucketIndex);
  }
}

package dev.veil.core.token;

import java.security.MessageDigest;
import java.time.Instant;
import java.util.Objects;
import javax.crypto.spec.SecretKeySpec;

/**
 * A 256-bit AES key with its id, keyset (site id: {@link #MASTER_SITE_ID}, {@link #REFRESH_SITE_ID}
 * or a publisher's site id) and lifetime. A key encrypts only while active ({@code activates <= now
 * < expires}) and decrypts until it expires. Immutable and thread-safe; {@link #toString()} never
 * shows the secret and {@link #equals} compares it in constant time.
 */
public final class EncryptionKey {
  /** Site id of the master keyset (outer layer of advertising tokens). */
  public static final int MASTER_SITE_ID = -1;

  /** Site id of the refresh keyset (refresh tokens only; never given to bidders). */
  public static final int REFRESH_SITE_ID = -2;

  private final int id;
  private final int siteId;
  private final Instant created;
  private final Instant activates;
  private final Instant expires;
  private final byte[] secret;
  private final SecretKeySpec spec;

  public EncryptionKey(
      int id, int siteId, Instant created, Instant activates, Instant expires, byte[] secret) {
    if (secret.length != 32) {
      throw new IllegalArgumentException("key secret must be 32 bytes");
    }
    this.id = id;
    this.siteId = siteId;
    this.created = Objects.requireNonNull(created);
    this.activates = Objects.requireNonNull(activates);
    this.expires = Objects.requireNonNull(expires);
    this.secret = secret.clone();
    this.spec = new SecretKeySpec(this.secret, "AES");
  }

  public int id() {
    return id;
  }

  public int siteId() {
    return siteId;
  }

  public Instant created() {
    return created;
  }

  public Instant activates() {
    return activates;
  }

  public Instant expires() {
    return expires;
  }

  /** A copy of the 32 secret bytes. */
  public byte[] secret() {
    return secret.clone();
  }

  /** The key as a JCA key, for ciphers; shared, do not modify. */
  public SecretKeySpec spec() {
    return spec;
  }

  /** Whether this key may encrypt at {@code now}. */
  public boolean isActive(Instant now) {
    return !now.isBefore(activates) && now.isBefore(expires);
  }

  /** Whether this key may no longer decrypt at {@code now}. */
  public boolean isExpired(Instant now) {
    return !now.isBefore(expires);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EncryptionKey k
        && k.id == id
        && k.siteId == siteId
        && k.created.equals(created)
        && k.activates.equals(activates)
        && k.expires.equals(expires)
        && MessageDigest.isEqual(k.secret, secret);
  }

  @Override
  public int hashCode() {
    return Integer.hashCode(id);
  }

  @Override
  public String toString() {
    return "EncryptionKey{id="
        + id
        + ", siteId="
        + siteId
        + ", activates="
        + activates
        + ", expires="
        + expires
        + ", secret=<redacted>}";
  }
}

package dev.veil.sdk;

import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.SharedToken;
import java.time.Instant;
import java.util.Base64;
import java.util.Objects;

/**
 * What {@link TokenDecryptor#decrypt} found. On {@link DecryptionStatus#SUCCESS} the token's fields
 * are available; otherwise {@link #status()} and {@link #reason()} say why it was rejected and the
 * field accessors throw.
 *
 * <pre>{@code
 * DecryptionResult r = decryptor.decrypt(bidRequest.advertisingToken());
 * if (r.isSuccess()) {
 *   bid(r.advertisingId(), r.siteId());
 * } else {
 *   metrics.rejected(r.status());
 * }
 * }</pre>
 *
 * <p>Immutable. {@link #toString()} does not show the advertising id.
 */
public final class DecryptionResult {
  private final DecryptionStatus status;
  private final String reason;
  private final SharedToken payload;

  private DecryptionResult(DecryptionStatus status, String reason, SharedToken payload) {
    this.status = status;
    this.reason = reason;
    this.payload = payload;
  }

  static DecryptionResult success(SharedToken payload) {
    return new DecryptionResult(DecryptionStatus.SUCCESS, "decrypted", payload);
  }

  static DecryptionResult rejected(DecryptionStatus status, String reason) {
    if (status == DecryptionStatus.SUCCESS) {
      throw new IllegalArgumentException("a rejection needs a failure status");
    }
    return new DecryptionResult(status, Objects.requireNonNull(reason, "reason"), null);
  }

  /** {@link DecryptionStatus#SUCCESS}, or why the token was rejected. */
  public DecryptionStatus status() {
    return status;
  }

  /** Whether the token was decrypted: then {@link #advertisingId()} and the rest can be read. */
  public boolean isSuccess() {
    return status == DecryptionStatus.SUCCESS;
  }

  /** A sentence for logs: why the token was rejected, or {@code decrypted}. Never the token. */
  public String reason() {
    return reason;
  }

  /**
   * The advertising id (raw UID), standard base64, as in mapping answers: 32 bytes in Veil's
   * tokens, 33 in those UID2's sharing SDKs make from UID2's raw ids.
   */
  public String advertisingId() {
    return Base64.getEncoder().encodeToString(payload().rawId());
  }

  /** The site id of the publisher the token was issued to. */
  public int siteId() {
    return payload().siteId();
  }

  /** Email or phone. */
  public IdentityType identityType() {
    return payload().identityType();
  }

  /** When the user's identity was first established (the start of the token chain). */
  public Instant established() {
    return payload().established();
  }

  /** When this token was issued. */
  public Instant created() {
    return payload().created();
  }

  /** When this token expires. */
  public Instant expires() {
    return payload().expires();
  }

  private SharedToken payload() {
    if (payload == null) {
      throw new IllegalStateException("token was rejected (" + status + "): " + reason);
    }
    return payload;
  }

  @Override
  public String toString() {
    if (payload == null) {
      return "DecryptionResult{" + status + ": " + reason + "}";
    }
    return "DecryptionResult{SUCCESS, siteId="
        + siteId()
        + ", identityType="
        + identityType()
        + ", established="
        + established()
        + ", expires="
        + expires()
        + ", advertisingId=<redacted>}";
  }
}

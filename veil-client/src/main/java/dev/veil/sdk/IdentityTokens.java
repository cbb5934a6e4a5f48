package dev.veil.sdk;

import dev.veil.sdk.internal.TokenJson;
import java.time.Instant;
import java.util.Objects;

/**
 * A token pair from generate or refresh. Hand {@link #advertisingToken()} unchanged to bidders;
 * keep the whole identity to get the next pair from {@link #refreshFrom()} on, until {@link
 * #refreshExpires()}. For the browser SDK, pass the whole generate body instead (see
 * docs/browser-sdk.md): {@link #toJson()} is that body.
 *
 * <p>Over v2 an identity also carries its {@link #refreshResponseKey()}, without which its refresh
 * answer cannot be read. Store identities with {@link #toJson()} and read them back with {@link
 * #fromJson}, which keep it; a store of your own must keep it too.
 *
 * @param advertisingToken opaque, base64url; what bidders decrypt
 * @param refreshToken opaque, standard base64; for {@link PublisherClient#refresh}
 * @param identityExpires when the advertising token stops being valid
 * @param refreshFrom when refreshing is worthwhile
 * @param refreshExpires when the refresh token stops working (the user must log in again)
 * @param refreshResponseKey the key of the refresh answer (standard base64 of 32 bytes), given by
 *     v2's generate and refresh; null for v1's tokens. A credential like the tokens.
 */
public record IdentityTokens(
    String advertisingToken,
    String refreshToken,
    Instant identityExpires,
    Instant refreshFrom,
    Instant refreshExpires,
    String refreshResponseKey) {
  /** Checks the fields: none may be null but {@code refreshResponseKey}. */
  public IdentityTokens {
    Objects.requireNonNull(advertisingToken, "advertisingToken");
    Objects.requireNonNull(refreshToken, "refreshToken");
    Objects.requireNonNull(identityExpires, "identityExpires");
    Objects.requireNonNull(refreshFrom, "refreshFrom");
    Objects.requireNonNull(refreshExpires, "refreshExpires");
  }

  /** A v1 identity: no refresh response key. */
  public IdentityTokens(
      String advertisingToken,
      String refreshToken,
      Instant identityExpires,
      Instant refreshFrom,
      Instant refreshExpires) {
    this(advertisingToken, refreshToken, identityExpires, refreshFrom, refreshExpires, null);
  }

  /**
   * The identity as the JSON body generate answers: {@code advertising_token}, {@code
   * refresh_token}, {@code identity_expires}, {@code refresh_from}, {@code refresh_expires} (epoch
   * milliseconds) and, over v2, {@code refresh_response_key}. It holds the user's credentials:
   * store it as you would a session.
   */
  public String toJson() {
    return TokenJson.write(this);
  }

  /**
   * Reads what {@link #toJson()} wrote (or a generate body): members may come in any order, unknown
   * ones are skipped.
   *
   * @throws IllegalArgumentException if it is not such a JSON object (the message quotes none of
   *     it)
   */
  public static IdentityTokens fromJson(String json) {
    return TokenJson.parse(Objects.requireNonNull(json, "json"));
  }

  /** Times only: tokens and keys are credentials of a user. */
  @Override
  public String toString() {
    return "IdentityTokens{identityExpires="
        + identityExpires
        + ", refreshFrom="
        + refreshFrom
        + ", refreshExpires="
        + refreshExpires
        + ", tokens=<redacted>}";
  }
}

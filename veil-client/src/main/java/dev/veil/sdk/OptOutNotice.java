package dev.veil.sdk;

import java.time.Instant;
import java.util.Objects;

/**
 * One opt-out as a Veil webhook request delivers it, once its signature is verified ({@link
 * WebhookVerifier}): the advertising id to stop bidding on and when the user opted out.
 *
 * @param advertisingId the raw advertising id, standard base64 (44 characters), as Veil's map and
 *     {@link TokenDecryptor} give it
 * @param optedOutAt the opt-out time, to the second
 */
public record OptOutNotice(String advertisingId, Instant optedOutAt) {
  public OptOutNotice {
    Objects.requireNonNull(advertisingId, "advertisingId");
    Objects.requireNonNull(optedOutAt, "optedOutAt");
  }
}

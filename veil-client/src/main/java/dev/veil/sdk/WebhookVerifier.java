package dev.veil.sdk;

import dev.veil.core.webhook.WebhookSignature;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Verifies the opt-out requests that Veil sends to a bidder's webhook and reads the opt-out from
 * them (docs/spec.md 4.1). A receiver, in any HTTP framework:
 *
 * <pre>{@code
 * WebhookVerifier verifier = new WebhookVerifier(secretFromRegistration);
 * // for each request: the method, the request target as it came on the request line
 * // (path and query, percent-encoding untouched) and the two headers
 * try {
 *   OptOutNotice optOut = verifier.verify("GET", rawPathAndQuery,
 *       request.header("X-Veil-Timestamp"), request.header("X-Veil-Signature"));
 *   stopBiddingOn(optOut.advertisingId(), optOut.optedOutAt());   // then answer 200
 * } catch (WebhookVerificationException e) {
 *   // answer 401: not from this Veil, or replayed
 * }
 * }</pre>
 *
 * <p>What is checked: the signature, {@code v1=} and HMAC-SHA256 under the webhook's secret of
 * {@code "v1\n" + timestamp + "\n" + method + "\n" + requestTarget}, compared in constant time; the
 * timestamp, within {@link #DEFAULT_TOLERANCE} of this machine's clock either way (so a captured
 * request cannot be replayed later); then the parameters {@code identity} (the advertising id) and
 * {@code timestamp} (the opt-out time, epoch seconds), or the names given to {@link #verify(String,
 * String, String, String, String, String)} for a webhook registered with placeholders. Answer 2xx
 * only after storing the opt-out: Veil sends each opt-out until a 2xx comes back, so a receiver may
 * see one twice (after a crash on either side) and should apply it idempotently.
 *
 * <p>Immutable and thread-safe.
 */
public final class WebhookVerifier {
  /** How far the signing time may lie from the receiver's clock: 5 minutes. */
  public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

  private final byte[] secret;
  private final Duration tolerance;
  private final Clock clock;

  /**
   * A verifier for the webhook whose secret (standard base64, as registration printed it) is {@code
   * secretBase64}, with {@link #DEFAULT_TOLERANCE} and the system clock.
   *
   * @throws IllegalArgumentException if the secret is not base64 of 32 bytes
   */
  public WebhookVerifier(String secretBase64) {
    this(secretBase64, DEFAULT_TOLERANCE, Clock.systemUTC());
  }

  /**
   * A verifier with the given timestamp tolerance and clock.
   *
   * @throws IllegalArgumentException if the secret is not base64 of 32 bytes or the tolerance is
   *     negative
   */
  public WebhookVerifier(String secretBase64, Duration tolerance, Clock clock) {
    Objects.requireNonNull(secretBase64, "secretBase64");
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(secretBase64.strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the webhook secret is not base64", e);
    }
    if (bytes.length != WebhookSignature.SECRET_BYTES) {
      throw new IllegalArgumentException(
          "a webhook secret has " + WebhookSignature.SECRET_BYTES + " bytes");
    }
    if (tolerance.isNegative()) {
      throw new IllegalArgumentException("tolerance must not be negative");
    }
    this.secret = bytes;
    this.tolerance = tolerance;
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Verifies a request to a webhook registered without placeholders and returns its opt-out.
   *
   * @param method the request's method ({@code GET})
   * @param requestTarget the path and query as received, still percent-encoded
   * @param timestampHeader the value of {@code X-Veil-Timestamp}, or null if absent
   * @param signatureHeader the value of {@code X-Veil-Signature}, or null if absent
   * @throws WebhookVerificationException if the request is not a valid signed opt-out
   */
  public OptOutNotice verify(
      String method, String requestTarget, String timestampHeader, String signatureHeader) {
    return verify(method, requestTarget, timestampHeader, signatureHeader, "identity", "timestamp");
  }

  /**
   * Like {@link #verify(String, String, String, String)}, for a webhook whose URL put {@code
   * %%identity%%} and {@code %%timestamp%%} under parameters of its own naming.
   *
   * @throws WebhookVerificationException if the request is not a valid signed opt-out
   */
  public OptOutNotice verify(
      String method,
      String requestTarget,
      String timestampHeader,
      String signatureHeader,
      String identityParameter,
      String timestampParameter) {
    checkSignature(method, requestTarget, timestampHeader, signatureHeader);
    int q = requestTarget.indexOf('?');
    Map<String, String> query = parseQuery(q < 0 ? "" : requestTarget.substring(q + 1));
    String id = query.get(identityParameter);
    if (id == null || !isAdvertisingId(id)) {
      throw new WebhookVerificationException(
          "parameter " + identityParameter + " is missing or not an advertising id");
    }
    String seconds = query.get(timestampParameter);
    if (seconds == null || !seconds.matches("[0-9]{1,12}")) {
      throw new WebhookVerificationException(
          "parameter " + timestampParameter + " is missing or not epoch seconds");
    }
    return new OptOutNotice(id, Instant.ofEpochSecond(Long.parseLong(seconds)));
  }

  /**
   * Checks only that the request is signed by this webhook's Veil, recently; for a receiver that
   * reads the parameters itself.
   *
   * @throws WebhookVerificationException if it is not
   */
  public void checkSignature(
      String method, String requestTarget, String timestampHeader, String signatureHeader) {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(requestTarget, "requestTarget");
    if (timestampHeader == null || !timestampHeader.strip().matches("[0-9]{1,12}")) {
      throw new WebhookVerificationException(
          WebhookSignature.TIMESTAMP_HEADER + " is missing or not epoch seconds");
    }
    if (signatureHeader == null || signatureHeader.isBlank()) {
      throw new WebhookVerificationException(WebhookSignature.SIGNATURE_HEADER + " is missing");
    }
    long signedAt = Long.parseLong(timestampHeader.strip());
    if (!WebhookSignature.matches(secret, signedAt, method, requestTarget, signatureHeader)) {
      throw new WebhookVerificationException("the signature does not match");
    }
    Duration skew = Duration.between(Instant.ofEpochSecond(signedAt), clock.instant()).abs();
    if (skew.compareTo(tolerance) > 0) {
      throw new WebhookVerificationException(
          "the request was signed " + skew.toSeconds() + " s from this clock, over the tolerance");
    }
  }

  private static boolean isAdvertisingId(String id) {
    try {
      return Base64.getDecoder().decode(id).length == 32;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static Map<String, String> parseQuery(String query) {
    Map<String, String> values = new HashMap<>();
    for (String pair : query.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      values.putIfAbsent(name, value);
    }
    return values;
  }

  private static String decode(String text) {
    try {
      return URLDecoder.decode(text, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new WebhookVerificationException("the query is not validly percent-encoded");
    }
  }
}

package dev.veil.core.webhook;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How a webhook request is signed (docs/spec.md 4.1). The signed text is
 *
 * <pre>{@code
 * v1 LF <timestamp> LF <method> LF <request-target>
 * }</pre>
 *
 * where {@code <timestamp>} is the value of {@value #TIMESTAMP_HEADER} (decimal epoch seconds when
 * the request was sent), {@code <method>} the HTTP method in upper case and {@code
 * <request-target>} the path and query exactly as sent on the request line ({@code
 * /optout?identity=...&timestamp=...}, percent-encoding untouched). The signature is HMAC-SHA256 of
 * that text, in UTF-8, under the webhook's 32-byte secret, sent as {@value #SIGNATURE_HEADER}:
 * {@code v1=} followed by 64 lowercase hex digits. The host is not signed, so a proxy in front of
 * the receiver may rename it; the timestamp lets the receiver refuse replays of old requests.
 *
 * <p>Stateless and thread-safe; a {@link Mac} is made per call (a webhook request costs far more
 * than that).
 */
public final class WebhookSignature {
  /** The header that carries the signature. */
  public static final String SIGNATURE_HEADER = "X-Veil-Signature";

  /** The header that carries the signing time, decimal epoch seconds. */
  public static final String TIMESTAMP_HEADER = "X-Veil-Timestamp";

  /** The version tag that starts the signed text and the header value. */
  public static final String VERSION = "v1";

  /** Length of a webhook secret in bytes. */
  public static final int SECRET_BYTES = 32;

  private static final String ALGORITHM = "HmacSHA256";

  private WebhookSignature() {}

  /** The text that is signed, as specified in the class documentation. */
  public static String signedText(long timestampSeconds, String method, String requestTarget) {
    return VERSION + '\n' + timestampSeconds + '\n' + method + '\n' + requestTarget;
  }

  /**
   * The value of {@value #SIGNATURE_HEADER} for a request.
   *
   * @throws IllegalArgumentException if {@code secret} does not have {@value #SECRET_BYTES} bytes
   */
  public static String sign(
      byte[] secret, long timestampSeconds, String method, String requestTarget) {
    return VERSION
        + '='
        + HexFormat.of()
            .formatHex(mac(secret, signedText(timestampSeconds, method, requestTarget)));
  }

  /**
   * Whether {@code signatureHeader} is the signature of this request under {@code secret}; the
   * comparison takes the same time wherever the first difference lies.
   *
   * @throws IllegalArgumentException if {@code secret} does not have {@value #SECRET_BYTES} bytes
   */
  public static boolean matches(
      byte[] secret,
      long timestampSeconds,
      String method,
      String requestTarget,
      String signatureHeader) {
    byte[] expected =
        sign(secret, timestampSeconds, method, requestTarget).getBytes(StandardCharsets.US_ASCII);
    byte[] given =
        signatureHeader == null
            ? new byte[0]
            : signatureHeader.strip().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(expected, given);
  }

  private static byte[] mac(byte[] secret, String text) {
    if (secret.length != SECRET_BYTES) {
      throw new IllegalArgumentException("a webhook secret has " + SECRET_BYTES + " bytes");
    }
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(new SecretKeySpec(secret, ALGORITHM));
      return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }
}

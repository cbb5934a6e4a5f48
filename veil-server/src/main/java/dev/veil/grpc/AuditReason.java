package dev.veil.grpc;

import dev.veil.audit.AuditLog;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The {@code x-veil-reason} metadata of an admin call: UTF-8, with {@code %XX} escapes for every
 * byte that is not printable ASCII (gRPC's ASCII metadata carries nothing else), at most {@value
 * AuditLog#MAX_REASON_LENGTH} code points once decoded, without control characters.
 */
final class AuditReason {
  private AuditReason() {}

  /**
   * The reason {@code header} holds; empty for none.
   *
   * @throws IllegalArgumentException with a message for the caller, for a malformed reason
   */
  static String decode(String header) {
    if (header == null || header.isEmpty()) {
      return "";
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(header.length());
    for (int i = 0; i < header.length(); i++) {
      char c = header.charAt(i);
      if (c == '%') {
        if (i + 2 >= header.length()
            || Character.digit(header.charAt(i + 1), 16) < 0
            || Character.digit(header.charAt(i + 2), 16) < 0) {
          throw new IllegalArgumentException(
              "x-veil-reason: '%' must be followed by two hexadecimal digits");
        }
        bytes.write(
            Character.digit(header.charAt(i + 1), 16) * 16
                + Character.digit(header.charAt(i + 2), 16));
        i += 2;
      } else {
        bytes.write(c);
      }
    }
    String reason;
    try {
      reason =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes.toByteArray()))
              .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("x-veil-reason: not UTF-8 once %-escapes are decoded", e);
    }
    try {
      return AuditLog.checkedReason(reason);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("x-veil-reason: " + e.getMessage(), e);
    }
  }
}

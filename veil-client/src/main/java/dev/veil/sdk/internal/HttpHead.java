package dev.veil.sdk.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.ProtocolException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The head of an HTTP/1.1 answer: status line and header fields (names case-insensitive, the first
 * value of each kept), read from the connection's stream up to the empty line, within {@link
 * #MAX_BYTES}.
 */
final class HttpHead {
  static final int MAX_BYTES = 64 * 1024;

  private final int status;
  private final boolean http10;
  private final Map<String, String> fields;

  private HttpHead(int status, boolean http10, Map<String, String> fields) {
    this.status = status;
    this.http10 = http10;
    this.fields = fields;
  }

  /**
   * Reads a head. Interim answers ({@code 100 Continue}) are skipped.
   *
   * @throws java.io.EOFException if the stream ends before the first byte (a closed connection)
   * @throws ProtocolException if it is not an HTTP/1.x head
   */
  static HttpHead read(InputStream in) throws IOException {
    while (true) {
      int[] budget = {MAX_BYTES};
      String statusLine = line(in, budget, true);
      if (!statusLine.startsWith("HTTP/1.")
          || statusLine.length() < 12
          || statusLine.charAt(8) != ' ') {
        throw new ProtocolException("not an HTTP/1.x answer");
      }
      int status = parseStatus(statusLine.substring(9, 12));
      Map<String, String> fields = new HashMap<>();
      for (String line = line(in, budget, false); !line.isEmpty(); line = line(in, budget, false)) {
        int colon = line.indexOf(':');
        if (colon <= 0) {
          throw new ProtocolException("malformed header line in the answer");
        }
        fields.putIfAbsent(
            line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
            line.substring(colon + 1).trim());
      }
      if (status >= 200 || status < 100) {
        return new HttpHead(status, statusLine.startsWith("HTTP/1.0"), fields);
      }
    }
  }

  private static int parseStatus(String digits) throws ProtocolException {
    for (int i = 0; i < digits.length(); i++) {
      if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
        throw new ProtocolException("malformed status line in the answer");
      }
    }
    return Integer.parseInt(digits);
  }

  /** One line without its CR LF; {@code budget[0]} counts down the head's bytes. */
  private static String line(InputStream in, int[] budget, boolean first) throws IOException {
    StringBuilder b = new StringBuilder(64);
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw first && b.length() == 0 && budget[0] == MAX_BYTES
            ? new java.io.EOFException("connection closed before an answer")
            : new ProtocolException("answer head ends early");
      }
      if (--budget[0] < 0) {
        throw new ProtocolException("answer head over " + MAX_BYTES + " bytes");
      }
      if (c != '\r') {
        b.append((char) c);
      }
    }
    return b.toString();
  }

  int status() {
    return status;
  }

  Optional<String> header(String name) {
    return Optional.ofNullable(fields.get(name.toLowerCase(Locale.ROOT)));
  }

  /** Whether the connection may carry another request after this answer. */
  boolean keepAlive() {
    String connection = fields.getOrDefault("connection", "").toLowerCase(Locale.ROOT);
    return http10 ? connection.contains("keep-alive") : !connection.contains("close");
  }

  /** Whether the body is chunked (the last transfer coding is {@code chunked}). */
  boolean chunked() throws ProtocolException {
    String coding = fields.get("transfer-encoding");
    if (coding == null) {
      return false;
    }
    String last = coding.substring(coding.lastIndexOf(',') + 1).trim().toLowerCase(Locale.ROOT);
    if (!last.equals("chunked")) {
      throw new ProtocolException("unsupported transfer coding in the answer");
    }
    return true;
  }

  /** The body's length, or -1 when none is given. */
  long contentLength() throws ProtocolException {
    String value = fields.get("content-length");
    if (value == null) {
      return -1;
    }
    try {
      long length = Long.parseLong(value);
      if (length < 0) {
        throw new ProtocolException("negative Content-Length in the answer");
      }
      return length;
    } catch (NumberFormatException e) {
      throw new ProtocolException("malformed Content-Length in the answer");
    }
  }
}

package dev.veil.deduction;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * The opaque {@code page_token} of the list methods: the last id of the previous page, so the next
 * page is "ids after it" (keyset paging: stable while records are created or change status, and as
 * cheap on page 100 as on page 1). Base64url of {@code d1:<id>}; callers must not build or parse
 * it.
 */
final class PageToken {
  private static final String PREFIX = "d1:";
  private static final int MAX_TOKEN_LENGTH = 32;

  private PageToken() {}

  static String after(long lastId) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((PREFIX + lastId).getBytes(StandardCharsets.US_ASCII));
  }

  /** The id the token continues after: 0 for an empty token, empty if it is not one of ours. */
  static Optional<Long> parse(String token) {
    if (token.isEmpty()) {
      return Optional.of(0L);
    }
    if (token.length() > MAX_TOKEN_LENGTH) {
      return Optional.empty();
    }
    try {
      String text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.US_ASCII);
      if (!text.startsWith(PREFIX)) {
        return Optional.empty();
      }
      long id = Long.parseLong(text.substring(PREFIX.length()));
      return id > 0 && id <= Deduction.MAX_ID && after(id).equals(token)
          ? Optional.of(id)
          : Optional.empty();
    } catch (IllegalArgumentException notBase64OrNotANumber) {
      return Optional.empty();
    }
  }
}

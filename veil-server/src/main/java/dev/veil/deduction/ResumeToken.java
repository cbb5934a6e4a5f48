package dev.veil.deduction;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The opaque resume token of {@code WatchDeductions}: the log position of the last change a watcher
 * received, so a watcher that reconnects (to any node) continues right after it. Base64url of
 * {@code w1:<xid>:<seq>}; callers must not build or parse it.
 */
public final class ResumeToken {
  private static final Pattern TEXT =
      Pattern.compile("w1:(0|[1-9][0-9]{0,18}):(0|[1-9][0-9]{0,18})");
  private static final int MAX_TOKEN_LENGTH = 64;

  private ResumeToken() {}

  /** The token that resumes after {@code position}. */
  public static String of(EventPosition position) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(
            ("w1:" + position.xid() + ":" + position.seq()).getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * The position a token resumes after: {@link EventPosition#START} for an empty token (the whole
   * log), empty if it is not one of ours.
   */
  public static Optional<EventPosition> parse(String token) {
    if (token.isEmpty()) {
      return Optional.of(EventPosition.START);
    }
    if (token.length() > MAX_TOKEN_LENGTH) {
      return Optional.empty();
    }
    try {
      String text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.US_ASCII);
      Matcher m = TEXT.matcher(text);
      if (!m.matches()) {
        return Optional.empty();
      }
      EventPosition position =
          new EventPosition(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
      return of(position).equals(token) ? Optional.of(position) : Optional.empty();
    } catch (IllegalArgumentException notBase64OrTooLarge) {
      return Optional.empty();
    }
  }
}

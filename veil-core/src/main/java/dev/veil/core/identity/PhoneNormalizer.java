package dev.veil.core.identity;

import java.util.Optional;

/**
 * Accepts phone numbers in E.164 form only: {@code +} followed by 10 to 15 ASCII digits and nothing
 * else. Nothing is trimmed or rewritten (no spaces, dashes, parentheses or national formats), so a
 * valid number is its own normal form and normalizing is idempotent.
 *
 * <p>Thread-safe and allocation-free.
 */
public final class PhoneNormalizer {
  /** Fewest digits after the {@code +}. */
  public static final int MIN_DIGITS = 10;

  /** Most digits after the {@code +} (the E.164 maximum). */
  public static final int MAX_DIGITS = 15;

  private PhoneNormalizer() {}

  /** The number itself when it is valid E.164, else empty (also for {@code null}). */
  public static Optional<String> normalize(String raw) {
    if (raw == null) {
      return Optional.empty();
    }
    int digits = raw.length() - 1;
    if (digits < MIN_DIGITS || digits > MAX_DIGITS || raw.charAt(0) != '+') {
      return Optional.empty();
    }
    for (int i = 1; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c < '0' || c > '9') {
        return Optional.empty();
      }
    }
    return Optional.of(raw);
  }
}

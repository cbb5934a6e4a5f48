package dev.veil.core.text;

/**
 * ASCII hexadecimal digits (unlike {@link Character#digit}, which also takes other scripts'
 * digits).
 */
public final class HexDigit {
  private HexDigit() {}

  /**
   * The value of {@code c} as a hexadecimal digit ({@code 0-9}, {@code a-f}, {@code A-F}), or -1.
   */
  public static int value(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }
}

package dev.veil.core.identity;

/**
 * The kind of personal identifier behind an identity. The prefix byte is the first byte of every
 * advertising and refresh token (email 0x03, phone 0x07).
 */
public enum IdentityType {
  EMAIL((byte) 0x03),
  PHONE((byte) 0x07);

  private final byte prefix;

  IdentityType(byte prefix) {
    this.prefix = prefix;
  }

  public byte prefix() {
    return prefix;
  }

  /** The type whose prefix byte is {@code b}, or {@code null} when no type has it. */
  public static IdentityType fromPrefix(byte b) {
    if (b == EMAIL.prefix) {
      return EMAIL;
    }
    if (b == PHONE.prefix) {
      return PHONE;
    }
    return null;
  }
}

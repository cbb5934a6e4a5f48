package dev.veil.sdk.internal.cache;

import dev.veil.core.identity.IdentityInput;

/** The integer that stands for an identifier kind in the mapping cache file; never renumber. */
final class KindCode {
  private KindCode() {}

  static int of(IdentityInput kind) {
    return switch (kind) {
      case EMAIL -> 1;
      case EMAIL_HASH -> 2;
      case PHONE -> 3;
      case PHONE_HASH -> 4;
      default -> throw new IllegalArgumentException("no code for " + kind);
    };
  }

  static IdentityInput kind(int code) {
    return switch (code) {
      case 1 -> IdentityInput.EMAIL;
      case 2 -> IdentityInput.EMAIL_HASH;
      case 3 -> IdentityInput.PHONE;
      case 4 -> IdentityInput.PHONE_HASH;
      default ->
          throw new IllegalStateException(
              "unknown identifier kind code " + code + " in the mapping cache");
    };
  }
}

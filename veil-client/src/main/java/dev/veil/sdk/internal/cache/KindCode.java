package dev.veil.sdk.internal.cache;

import dev.veil.core.identity.IdentityInput;

/** The integer that stands for an identifier kind in the mapping cache file; never renumber. */
final class KindCode {
  private KindCode() {}

  static int of(IdentityInput kind) {
    switch (kind) {
      case EMAIL:
        return 1;
      case EMAIL_HASH:
        return 2;
      case PHONE:
        return 3;
      case PHONE_HASH:
        return 4;
      default:
        throw new IllegalArgumentException("no code for " + kind);
    }
  }

  static IdentityInput kind(int code) {
    switch (code) {
      case 1:
        return IdentityInput.EMAIL;
      case 2:
        return IdentityInput.EMAIL_HASH;
      case 3:
        return IdentityInput.PHONE;
      case 4:
        return IdentityInput.PHONE_HASH;
      default:
        throw new IllegalStateException(
            "unknown identifier kind code " + code + " in the mapping cache");
    }
  }
}

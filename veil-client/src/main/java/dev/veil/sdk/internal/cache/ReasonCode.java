package dev.veil.sdk.internal.cache;

import dev.veil.sdk.MapOutcome;

/** The integer that stands for a rejection reason in the mapping cache file; never renumber. */
final class ReasonCode {
  private ReasonCode() {}

  static int of(MapOutcome.Reason reason) {
    return switch (reason) {
      case OPTED_OUT -> 1;
      case INVALID_IDENTIFIER -> 2;
      default -> 3;
    };
  }

  static MapOutcome.Reason reason(int code) {
    return switch (code) {
      case 1 -> MapOutcome.Reason.OPTED_OUT;
      case 2 -> MapOutcome.Reason.INVALID_IDENTIFIER;
      default -> MapOutcome.Reason.OTHER;
    };
  }
}

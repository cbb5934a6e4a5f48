package dev.veil.sdk.internal.cache;

import dev.veil.sdk.MapOutcome;

/** The integer that stands for a rejection reason in the mapping cache file; never renumber. */
final class ReasonCode {
  private ReasonCode() {}

  static int of(MapOutcome.Reason reason) {
    switch (reason) {
      case OPTED_OUT:
        return 1;
      case INVALID_IDENTIFIER:
        return 2;
      default:
        return 3;
    }
  }

  static MapOutcome.Reason reason(int code) {
    switch (code) {
      case 1:
        return MapOutcome.Reason.OPTED_OUT;
      case 2:
        return MapOutcome.Reason.INVALID_IDENTIFIER;
      default:
        return MapOutcome.Reason.OTHER;
    }
  }
}

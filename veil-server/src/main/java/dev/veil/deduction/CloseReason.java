package dev.veil.deduction;

import java.util.Optional;

/** Why a deduction is EXPIRED; the numbers are the wire and storage values. */
public enum CloseReason {
  /** Not closed: the record is NORMAL. */
  NONE(0),
  /** Closed by {@code CloseDeduction}. */
  MANUAL(1),
  /** Closed by the expiry job because its validity window ended. */
  SCHEDULED(2);

  private final int code;

  CloseReason(int code) {
    this.code = code;
  }

  /** The number on the wire ({@code DeductionStruct.close_reason}) and in storage. */
  public int code() {
    return code;
  }

  /** The reason with this number, if there is one. */
  public static Optional<CloseReason> ofCode(long code) {
    for (CloseReason r : values()) {
      if (r.code == code) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }
}

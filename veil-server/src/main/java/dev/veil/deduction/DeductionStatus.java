package dev.veil.deduction;

import java.util.Optional;

/** Where a deduction service is in its life; the numbers are the wire and storage values. */
public enum DeductionStatus {
  /** Open, in service. New records start here; {@code OpenDeduction} returns a record here. */
  NORMAL(0),
  /** Closed. {@code CloseDeduction} moves a record here. */
  EXPIRED(1);

  private final int code;

  DeductionStatus(int code) {
    this.code = code;
  }

  /** The number on the wire ({@code DeductionStruct.status}) and in the {@code status} column. */
  public int code() {
    return code;
  }

  /** The status with this number, if there is one. */
  public static Optional<DeductionStatus> ofCode(long code) {
    for (DeductionStatus s : values()) {
      if (s.code == code) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }
}

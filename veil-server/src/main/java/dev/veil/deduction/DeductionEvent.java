package dev.veil.deduction;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of the deduction change log: a record's state after one change.
 *
 * @param position where the entry is in the log's order (what a resume token names)
 * @param kind what the change was
 * @param deduction the record as the change left it
 * @param at when the change was made (the record's {@code updated}, or {@code created})
 * @param actor the name of the client that made the change, {@link #EXPIRY_ACTOR} for the expiry
 *     job, or empty for the entries that describe records as they were when the log began
 */
public record DeductionEvent(
    EventPosition position, Kind kind, Deduction deduction, Instant at, String actor) {
  /** The actor of the changes the expiry job makes. */
  public static final String EXPIRY_ACTOR = "veil expiry job";

  public DeductionEvent {
    Objects.requireNonNull(position, "position");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(deduction, "deduction");
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(actor, "actor");
  }

  /** What a change was; the numbers are the wire and storage values. */
  public enum Kind {
    CREATED(1),
    /** Moved from EXPIRED to NORMAL. */
    OPENED(2),
    /** Moved to EXPIRED by {@code CloseDeduction}. */
    CLOSED(3),
    /** Moved to EXPIRED by the expiry job: its validity window ended. */
    EXPIRED(4),
    /** Stayed NORMAL, with another validity window. */
    UPDATED(5);

    private final int code;

    Kind(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }

    public static Optional<Kind> ofCode(long code) {
      for (Kind k : values()) {
        if (k.code == code) {
          return Optional.of(k);
        }
      }
      return Optional.empty();
    }

    /** The kind of the change from {@code before} to {@code after} (of the same record). */
    public static Kind between(Deduction before, Deduction after) {
      if (after.status() == before.status()) {
        return UPDATED;
      }
      if (after.status() == DeductionStatus.NORMAL) {
        return OPENED;
      }
      return after.closeReason() == CloseReason.SCHEDULED ? EXPIRED : CLOSED;
    }
  }
}

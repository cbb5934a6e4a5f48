package dev.veil.deduction;

import java.time.Instant;
import java.util.Objects;

/**
 * One deduction service as stored.
 *
 * @param id assigned by the store: 1 to {@link #MAX_ID}, never reused
 * @param title 1 to {@value #MAX_TITLE_LENGTH} characters, not blank (not only white space and
 *     invisible characters: {@link dev.veil.common.BlankText})
 * @param desc at most {@value #MAX_DESC_LENGTH} characters, may be empty
 * @param payMethodId an unsigned 32-bit number the caller chose; Veil attaches no meaning to it
 * @param created when the record was created (millisecond precision)
 * @param updated when its status last changed; equals {@code created} until then
 */
public record Deduction(
    long id,
    String title,
    String desc,
    long payMethodId,
    DeductionStatus status,
    Instant created,
    Instant updated) {
  /** Ids and pay method ids are unsigned 32-bit numbers on the wire. */
  public static final long MAX_ID = 0xFFFF_FFFFL;

  /** In Unicode code points. */
  public static final int MAX_TITLE_LENGTH = 128;

  /** In Unicode code points. */
  public static final int MAX_DESC_LENGTH = 1024;

  public Deduction {
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(desc, "desc");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(created, "created");
    Objects.requireNonNull(updated, "updated");
  }

  /** This record with another status, changed at {@code at}. */
  public Deduction withStatus(DeductionStatus next, Instant at) {
    return new Deduction(id, title, desc, payMethodId, next, created, at);
  }
}

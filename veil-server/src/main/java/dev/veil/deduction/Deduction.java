package dev.veil.deduction;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One deduction service as stored.
 *
 * @param id assigned by the store: 1 to {@link #MAX_ID}, never reused
 * @param title 1 to {@value #MAX_TITLE_LENGTH} characters, not blank (not only white space and
 *     invisible characters: {@link dev.veil.common.BlankText})
 * @param desc at most {@value #MAX_DESC_LENGTH} characters, may be empty
 * @param payMethodId an unsigned 32-bit number the caller chose; Veil attaches no meaning to it
 * @param created when the record was created (millisecond precision)
 * @param updated when it last changed; equals {@code created} until then
 * @param version 1 when created, one more with every change (optimistic concurrency)
 * @param validUntil the end of its validity window, if it has one: once it has passed, the expiry
 *     job closes the record ({@link CloseReason#SCHEDULED})
 * @param closeReason why it is EXPIRED; {@link CloseReason#NONE} exactly when it is NORMAL
 */
public record Deduction(
    long id,
    String title,
    String desc,
    long payMethodId,
    DeductionStatus status,
    Instant created,
    Instant updated,
    long version,
    Optional<Instant> validUntil,
    CloseReason closeReason) {
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
    Objects.requireNonNull(validUntil, "validUntil");
    Objects.requireNonNull(closeReason, "closeReason");
  }

  /** A record as created at {@code at}: NORMAL, version 1. */
  public static Deduction created(
      long id,
      String title,
      String desc,
      long payMethodId,
      Instant at,
      Optional<Instant> validUntil) {
    return new Deduction(
        id,
        title,
        desc,
        payMethodId,
        DeductionStatus.NORMAL,
        at,
        at,
        1,
        validUntil,
        CloseReason.NONE);
  }

  /**
   * This record opened (NORMAL) or closed by hand (EXPIRED) at {@code at}: the next version, or
   * this record itself if it already has that status.
   */
  public Deduction withStatus(DeductionStatus next, Instant at) {
    if (next == status) {
      return this;
    }
    return new Deduction(
        id,
        title,
        desc,
        payMethodId,
        next,
        created,
        at,
        version + 1,
        validUntil,
        next == DeductionStatus.NORMAL ? CloseReason.NONE : CloseReason.MANUAL);
  }

  /**
   * What a change that the store applies at {@code at} makes of this record: {@code decided}'s
   * status, window and close reason, as the next version. {@code decided} is this record with those
   * fields changed.
   */
  public Deduction nextVersion(Deduction decided, Instant at) {
    return new Deduction(
        id,
        title,
        desc,
        payMethodId,
        decided.status,
        created,
        at,
        version + 1,
        decided.validUntil,
        decided.closeReason);
  }

  /** Whether {@code other} has this record's status, window and close reason. */
  public boolean sameStateAs(Deduction other) {
    return status == other.status
        && validUntil.equals(other.validUntil)
        && closeReason == other.closeReason;
  }

  /** This record with another status, window and close reason; version and times unchanged. */
  Deduction with(DeductionStatus nextStatus, Optional<Instant> nextWindow, CloseReason reason) {
    return new Deduction(
        id, title, desc, payMethodId, nextStatus, created, updated, version, nextWindow, reason);
  }
}

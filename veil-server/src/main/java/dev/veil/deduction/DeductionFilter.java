package dev.veil.deduction;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Which records a list returns: every condition given must hold.
 *
 * @param statuses any of these statuses; empty: any status
 * @param payMethodIds any of these pay method ids; empty: any
 * @param createdFrom created at or after this instant, if given
 * @param createdBefore created before this instant, if given
 */
public record DeductionFilter(
    Set<DeductionStatus> statuses,
    Set<Long> payMethodIds,
    Optional<Instant> createdFrom,
    Optional<Instant> createdBefore) {
  /** The most pay method ids one filter may name. */
  public static final int MAX_PAY_METHOD_IDS = 100;

  public DeductionFilter {
    statuses = Set.copyOf(statuses);
    payMethodIds = Set.copyOf(payMethodIds);
    Objects.requireNonNull(createdFrom, "createdFrom");
    Objects.requireNonNull(createdBefore, "createdBefore");
  }

  /** The records with {@code status}. */
  public static DeductionFilter status(DeductionStatus status) {
    return new DeductionFilter(Set.of(status), Set.of(), Optional.empty(), Optional.empty());
  }

  /** Whether {@code d} passes this filter. */
  public boolean matches(Deduction d) {
    return (statuses.isEmpty() || statuses.contains(d.status()))
        && (payMethodIds.isEmpty() || payMethodIds.contains(d.payMethodId()))
        && createdFrom.map(from -> !d.created().isBefore(from)).orElse(true)
        && createdBefore.map(before -> d.created().isBefore(before)).orElse(true);
  }
}

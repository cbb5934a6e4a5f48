package dev.veil.audit;

import java.time.Instant;

/**
 * Which records a listing returns, newest first: each non-null field narrows it. {@code beforeId}
 * is the paging position (records with a smaller id); {@code from} inclusive, {@code until}
 * exclusive.
 */
public record AuditFilter(
    Long actorId, String action, String target, Instant from, Instant until, Long beforeId) {
  public static final AuditFilter ALL = new AuditFilter(null, null, null, null, null, null);

  public AuditFilter before(long id) {
    return new AuditFilter(actorId, action, target, from, until, id);
  }
}

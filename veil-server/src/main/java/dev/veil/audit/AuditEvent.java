package dev.veil.audit;

import java.time.Instant;

/**
 * One audit record: at {@code at}, the client {@code actorId} ({@code actorName} at the time) did
 * {@code action} (an admin method's name, e.g. {@code CreateClient}) to {@code target} (e.g. {@code
 * client 12}), changing {@code details} (a JSON object of the fields it set, never a secret, key,
 * salt or identifier), for {@code reason} (the caller's words, may be empty).
 *
 * @param id assigned by the store, ascending in the order records were appended on one node; 0
 *     before the append
 */
public record AuditEvent(
    long id,
    Instant at,
    long actorId,
    String actorName,
    String action,
    String target,
    String details,
    String reason) {}

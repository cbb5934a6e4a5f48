/**
 * The audit trail: one append-only record per admin change (docs/operators.md, "Audit trail").
 *
 * <ul>
 *   <li>{@link dev.veil.audit.AuditEvent}: what one record holds (time, acting client, action,
 *       target, what changed, reason); never a secret, key, salt or identifier.
 *   <li>{@link dev.veil.audit.AuditLog}: records a change's event in the change's own write
 *       transaction ({@link dev.veil.audit.AuditLog#record}), and lists events.
 *   <li>{@link dev.veil.audit.AuditStore}: append and list; nothing else, so nothing in Veil can
 *       rewrite or delete a record (the tables refuse it too).
 * </ul>
 */
package dev.veil.audit;

/**
 * Deduction services (docs/spec.md 6.1): records an administrator lists, creates, opens and closes
 * through {@code DeductionAdminApi}.
 *
 * <ul>
 *   <li>{@link dev.veil.deduction.DeductionService} decides every answer: it validates input, calls
 *       the store once and returns a {@link dev.veil.deduction.DeductionResult} carrying one of the
 *       {@link dev.veil.deduction.DeductionCode}s. It never throws for a business outcome or a
 *       store outage;
 *   <li>{@link dev.veil.deduction.DeductionStore} is the durable storage (SQL in {@code
 *       dev.veil.storage.JdbcDeductionStore}); each write is one atomic statement, durable on
 *       return;
 *   <li>{@link dev.veil.deduction.Deduction} and {@link dev.veil.deduction.DeductionStatus} are the
 *       values.
 * </ul>
 *
 * <p>Unlike keys, salts, clients and opt-outs, deductions are not hot-path data: they are read from
 * the store on every call and not cached, so every node answers with the committed state.
 */
package dev.veil.deduction;

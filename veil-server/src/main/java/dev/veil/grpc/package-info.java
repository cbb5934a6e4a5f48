/**
 * The admin gRPC adapter (docs/spec.md 6). Where a call enters and what decides its answer:
 *
 * <ol>
 *   <li>{@link dev.veil.grpc.AdminGrpcServer} binds the listener, serves health without a key and
 *       reflection behind the admin key check, and wires every admin service behind two
 *       interceptors;
 *   <li>{@link dev.veil.grpc.AdminAuthInterceptor} refuses calls without an {@code ADMIN} API key;
 *   <li>{@link dev.veil.grpc.DomainErrorInterceptor} turns domain exceptions into gRPC status codes
 *       (the only place that does);
 *   <li>{@link dev.veil.grpc.IdentityAdminService} translates {@code IdentityAdminApi} messages to
 *       domain calls and back, with {@link dev.veil.grpc.AdminMessages} doing the field mapping;
 *   <li>{@link dev.veil.grpc.DeductionAdminService} translates {@code DeductionAdminApi} messages
 *       to {@link dev.veil.deduction.DeductionService} calls and back. Its outcomes, store outages
 *       included, travel in the response's {@code code} and {@code message} with status OK, so the
 *       error interceptor sees only faults.
 * </ol>
 */
package dev.veil.grpc;

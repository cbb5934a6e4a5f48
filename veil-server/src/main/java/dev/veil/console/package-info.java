/**
 * The web console: an adapter, like {@code dev.veil.http} and {@code dev.veil.grpc}, that lets an
 * operator do in a browser what {@code veil admin} does, on a listener of its own ({@code
 * console.host}:{@code console.port}, loopback by default).
 *
 * <p>Where to look: {@link dev.veil.console.ConsoleServer} (the listener, headers, static files),
 * {@code ConsoleRoutes} (the route table: every page and form with the {@link
 * dev.veil.client.AdminAction} it performs), {@code ConsoleDispatcher} (session, cross-site request
 * checks, the role check, refusals as pages), one class per group of pages ({@code ClientPages},
 * {@code DeductionPages}, …), {@code Sessions} and {@code SignIn}.
 *
 * <p>Rules it keeps: it calls the domain services the admin gRPC API calls ({@link
 * dev.veil.console.ConsoleApi}), never a store; every request performs one {@code AdminAction} and
 * is allowed only to a client that holds its role; every change runs inside {@link
 * dev.veil.audit.AuditLog#record} with the signed-in client as the actor and the same action,
 * target and details as the gRPC method; keys and secrets appear on the one page that answers the
 * form that made them, and nowhere else (not in a URL, a log, the session or a later page); every
 * value is HTML-escaped ({@code Html}).
 */
package dev.veil.console;

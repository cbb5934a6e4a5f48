/**
 * {@code veil admin ...}: a gRPC client of {@code IdentityAdminApi} and {@code DeductionAdminApi}
 * for operators. {@link dev.veil.cli.admin.AdminOptions} says where the server is and which key to
 * use; every leaf command extends {@link dev.veil.cli.admin.AdminCall} (through {@link
 * dev.veil.cli.admin.AdminRpc} or {@link dev.veil.cli.admin.DeductionRpc}), which opens the
 * channel, makes the call (a deduction list of all records: one per page) and turns the outcome
 * into an exit code (0 ok, 1 the server refused or answered a non-zero deduction code, 2 usage, 3
 * cannot connect, or the port answered HTTP but not gRPC). Output is a readable table ({@link
 * dev.veil.cli.admin.Table}, which escapes control and format characters), or JSON with {@code
 * --json} ({@link dev.veil.cli.admin.ProtoJson}).
 */
package dev.veil.cli.admin;

/**
 * {@code veil admin ...}: a gRPC client of {@code IdentityAdminApi} for operators. {@link
 * dev.veil.cli.admin.AdminOptions} says where the server is and which key to use; every leaf
 * command extends {@link dev.veil.cli.admin.AdminRpc}, which opens the channel, makes one call and
 * turns the outcome into an exit code (0 ok, 1 the server refused, 2 usage, 3 cannot connect).
 * Output is a readable table, or JSON with {@code --json} ({@link dev.veil.cli.admin.ProtoJson}).
 */
package dev.veil.cli.admin;

/**
 * Helpers for the admin gRPC tests: {@link dev.veil.grpc.testing.EchoService} (a stand-in for a
 * further admin service) and {@link dev.veil.grpc.testing.Statuses} (the status a call failed
 * with). The running server and the node behind it are in {@code dev.veil.testing}.
 */
package dev.veil.grpc.testing;

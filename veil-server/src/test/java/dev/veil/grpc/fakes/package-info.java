/**
 * Test doubles for the admin gRPC tests: in-memory stores behind a {@link
 * dev.veil.grpc.fakes.StoreFaults} switch (to simulate an outage or a fault), a {@link
 * dev.veil.grpc.fakes.MutableClock}, {@link dev.veil.grpc.fakes.FakeNode} (a real {@code Services}
 * graph over the fakes) and {@link dev.veil.grpc.fakes.RunningAdminServer}.
 */
package dev.veil.grpc.fakes;

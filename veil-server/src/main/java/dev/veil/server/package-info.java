/**
 * The composition root: {@link dev.veil.server.VeilServer} builds every object by hand, starts the
 * HTTP and gRPC listeners and the background jobs, and stops them in order.
 */
package dev.veil.server;

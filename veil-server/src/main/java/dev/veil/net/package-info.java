/**
 * Guards shared by the node's listeners, below any protocol: {@link dev.veil.net.ConnectionLimit}
 * bounds the connections the public HTTP listener and the admin gRPC listener hold open together,
 * so that the node never runs out of file descriptors, and sheds the connections that have waited
 * longest to let new ones in. Depends on nothing but the JDK and {@code dev.veil.observability}, so
 * both adapters ({@code dev.veil.http}, {@code dev.veil.grpc}) can use it.
 */
package dev.veil.net;

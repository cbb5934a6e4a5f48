package dev.veil.bench;

import dev.veil.net.ConnectionLimit;
import dev.veil.net.ConnectionSlot;
import dev.veil.observability.Metrics;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What tracking a request's connection costs (the connection limit and the request deadlines of
 * {@code dev.veil.http.ListenerConnections}): the listener's look-up of the connection among 1,000
 * open ones, then the slot marked busy at the head and waiting at the answer's end; a request with
 * a body also waits for it in between (waiting, then busy again). The plain field writes of {@code
 * TrackedConnection} around these are not included.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ConnectionTrackingBenchmark {
  private final Map<Object, ConnectionSlot> open = new HashMap<>();
  private Object connection;
  private long now;

  @Setup
  public void connections() {
    ConnectionLimit limit = new ConnectionLimit(10_000, new Metrics());
    for (int i = 0; i < 1_000; i++) {
      connection = new Object();
      open.put(connection, limit.admit(() -> {}));
    }
  }

  /** A request without a body (GET): head, answer. */
  @Benchmark
  public boolean withoutBody() {
    ConnectionSlot slot = open.get(connection);
    boolean served = slot.busy();
    slot.waiting(now++);
    return served;
  }

  /** A request with a body (POST): head, wait for the body, body, answer. */
  @Benchmark
  public boolean withBody() {
    ConnectionSlot slot = open.get(connection);
    slot.busy();
    slot.waiting(now);
    boolean served = slot.busy();
    slot.waiting(now++);
    return served;
  }
}

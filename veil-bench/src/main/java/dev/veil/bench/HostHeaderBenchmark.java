package dev.veil.bench;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.impl.headers.HeadersMultiMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What the RFC 9112 section 3.2 check (exactly one {@code Host} in an HTTP/1.1 request) costs each
 * request: the header look-ups of {@code RequestDispatcher.hostProblem} on the headers of a
 * generate request as the benchmark's wrk script sends it, in Vert.x's own header map.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HostHeaderBenchmark {
  private MultiMap headers;

  @Setup
  public void headers() {
    headers =
        HeadersMultiMap.httpHeaders()
            .add("Host", "127.0.0.1:8080")
            .add(
                "Authorization",
                "Bearer vk1.AAAAAAAAAAAA.0123456789abcdef0123456789abcdef0123456789ab")
            .add("Content-Type", "application/json")
            .add("Content-Length", "33");
  }

  /** Exactly one {@code Host}: the first value, then whether a second follows. */
  @Benchmark
  public boolean getAll() {
    List<String> hosts = headers.getAll(HttpHeaders.HOST);
    return hosts.size() == 1;
  }

  /** Only that a {@code Host} is there (no duplicate check). */
  @Benchmark
  public boolean get() {
    return headers.get(HttpHeaders.HOST) != null;
  }
}

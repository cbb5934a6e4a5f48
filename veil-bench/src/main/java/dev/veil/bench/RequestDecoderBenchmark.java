package dev.veil.bench;

import dev.veil.http.StrictRequestDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.impl.VertxHttpRequestDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the public listener's request decoder ({@code StrictRequestDecoder}: the version check, the
 * chunk-size check) costs each request against Vert.x's own: one request decoded per operation on
 * one connection, as a generate GET (what {@code bench/run.sh} sends), a generate POST with {@code
 * Content-Length}, and the same POST chunked (two chunks).
 *
 * <p>{@link #main} compares the two decoders by the CPU time of the measuring thread instead, in
 * alternating rounds: on a machine busy with other work, JMH's wall-clock times mostly measure how
 * often the thread was not running.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RequestDecoderBenchmark {
  private static final String KEY =
      "Authorization: Bearer vk1.AAAAAAAAAAAA.0123456789abcdef0123456789abcdef0123456789ab\r\n";
  private static final String BODY = "{\"email\":\"bench@example.com\"}";

  @Param({"vertx", "strict"})
  public String decoder;

  @Param({"get", "post", "chunked"})
  public String request;

  private EmbeddedChannel channel;
  private ByteBuf bytes;

  @Setup
  public void setUp() {
    HttpServerOptions options =
        new HttpServerOptions().setMaxInitialLineLength(16_384).setMaxHeaderSize(16_384);
    channel =
        new EmbeddedChannel(
            decoder.equals("strict")
                ? new StrictRequestDecoder(options)
                : new VertxHttpRequestDecoder(options));
    String text =
        switch (request) {
          case "get" ->
              "GET /v1/token/generate?email=bench%40example.com HTTP/1.1\r\n"
                  + "Host: 127.0.0.1:8080\r\n"
                  + KEY
                  + "\r\n";
          case "post" ->
              "POST /v1/token/generate HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
                  + KEY
                  + "Content-Type: application/json\r\nContent-Length: "
                  + BODY.length()
                  + "\r\n\r\n"
                  + BODY;
          case "chunked" ->
              "POST /v1/token/generate HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
                  + KEY
                  + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                  + "a\r\n"
                  + BODY.substring(0, 10)
                  + "\r\n"
                  + Integer.toHexString(BODY.length() - 10)
                  + "\r\n"
                  + BODY.substring(10)
                  + "\r\n0\r\n\r\n";
          default -> throw new IllegalArgumentException(request);
        };
    bytes =
        Unpooled.unreleasableBuffer(
            Unpooled.directBuffer().writeBytes(text.getBytes(StandardCharsets.US_ASCII)));
  }

  @TearDown
  public void tearDown() {
    channel.finishAndReleaseAll();
  }

  /**
   * {@code java -cp ... dev.veil.bench.RequestDecoderBenchmark [rounds [decoder...]]}: for each
   * request, the median and lowest CPU time per decode of each decoder ({@code vertx}, {@code
   * strict}, default both) over alternating rounds of 200,000. With one decoder per JVM, each JVM
   * sees one decoder class only, as a server does; alternate the JVMs to compare.
   */
  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    List<String> decoders =
        args.length > 1 ? List.of(args).subList(1, args.length) : List.of("vertx", "strict");
    java.lang.management.ThreadMXBean cpu =
        java.lang.management.ManagementFactory.getThreadMXBean();
    for (String kind : List.of("get", "post", "chunked")) {
      List<RequestDecoderBenchmark> benches = new ArrayList<>();
      List<List<Double>> times = new ArrayList<>();
      for (String decoder : decoders) {
        RequestDecoderBenchmark bench = new RequestDecoderBenchmark();
        bench.decoder = decoder;
        bench.request = kind;
        bench.setUp();
        benches.add(bench);
        times.add(new ArrayList<>());
      }
      for (int round = -3; round < rounds; round++) { // three rounds of warm-up
        for (int k = 0; k < benches.size(); k++) {
          int b =
              (round & 1) == 0 ? k : benches.size() - 1 - k; // each goes first in every other round
          long start = cpu.getCurrentThreadCpuTime();
          for (int i = 0; i < 200_000; i++) {
            benches.get(b).decode();
          }
          if (round >= 0) {
            times.get(b).add((cpu.getCurrentThreadCpuTime() - start) / 200_000.0);
          }
        }
      }
      for (int b = 0; b < benches.size(); b++) {
        List<Double> t = times.get(b).stream().sorted().toList();
        System.out.printf(
            "%-8s %-7s median %7.1f ns  lowest %7.1f ns%n",
            kind, benches.get(b).decoder, t.get(t.size() / 2), t.get(0));
        benches.get(b).tearDown();
      }
    }
  }

  /**
   * Decodes one request and drops what the decoder made of it; returns how many objects that was.
   */
  @Benchmark
  public int decode() {
    channel.writeInbound(bytes.duplicate());
    int objects = 0;
    for (Object decoded; (decoded = channel.readInbound()) != null; objects++) {
      ReferenceCountUtil.release(decoded);
    }
    return objects;
  }
}

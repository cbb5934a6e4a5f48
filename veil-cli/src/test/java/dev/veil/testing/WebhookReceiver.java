package dev.veil.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.veil.sdk.OptOutNotice;
import dev.veil.sdk.WebhookVerificationException;
import dev.veil.sdk.WebhookVerifier;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bidder's opt-out webhook for tests: a real HTTP server on 127.0.0.1 (the JDK's) that checks
 * every request with the Java client's {@link WebhookVerifier} and records the opt-outs it
 * accepted. It can be told to fail: {@link #failNext} answers the next requests alternately 500 and
 * not at all (for the silence given to {@link #start}, then the connection is closed without an
 * answer), {@link #down} fails every request until it is told otherwise. A request it cannot verify
 * is answered 401 and counted.
 */
public final class WebhookReceiver implements AutoCloseable {
  private final HttpServer server;
  private final java.time.Duration silence;
  private final ExecutorService executor = Executors.newFixedThreadPool(32);
  private final AtomicInteger toFail = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();
  private final AtomicInteger badSignatures = new AtomicInteger();
  private final List<OptOutNotice> accepted = new ArrayList<>();
  private volatile WebhookVerifier verifier;
  private volatile boolean down;

  private WebhookReceiver(HttpServer server, java.time.Duration silence) {
    this.server = server;
    this.silence = silence;
  }

  /**
   * Starts a receiver on an ephemeral loopback port; it fails everything until {@link #verifyWith}.
   * A request it does not answer waits {@code silence}: make it longer than the sender's {@code
   * webhook.timeout}, and the timeout long enough for a loaded machine's normal answers (an answer
   * that comes after the sender gave up is an opt-out delivered twice, as at-least-once allows).
   */
  public static WebhookReceiver start(java.time.Duration silence) throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
    WebhookReceiver receiver = new WebhookReceiver(server, silence);
    server.createContext("/", receiver::handle);
    server.setExecutor(receiver.executor);
    server.start();
    return receiver;
  }

  /** The URL to register: {@code http://127.0.0.1:<port>/optout}. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/optout";
  }

  /** Verifies requests with the secret registration printed, from now on. */
  public void verifyWith(String secret) {
    this.verifier = new WebhookVerifier(secret);
  }

  /** Fails the next {@code count} requests: 500, no answer, 500, ... */
  public void failNext(int count) {
    toFail.set(count);
  }

  /** While down, every request is answered 503. */
  public void down(boolean down) {
    this.down = down;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      WebhookVerifier v = verifier;
      if (down || v == null) {
        failed.incrementAndGet();
        exchange.sendResponseHeaders(503, -1);
        return;
      }
      int fail = toFail.getAndUpdate(n -> Math.max(0, n - 1));
      if (fail > 0) {
        failed.incrementAndGet();
        if (fail % 2 == 1) {
          exchange.sendResponseHeaders(500, -1);
        } else {
          silence();
        }
        return;
      }
      OptOutNotice notice;
      try {
        notice =
            v.verify(
                exchange.getRequestMethod(),
                exchange.getRequestURI().getRawPath()
                    + (exchange.getRequestURI().getRawQuery() == null
                        ? ""
                        : "?" + exchange.getRequestURI().getRawQuery()),
                exchange.getRequestHeaders().getFirst("X-Veil-Timestamp"),
                exchange.getRequestHeaders().getFirst("X-Veil-Signature"));
      } catch (WebhookVerificationException e) {
        badSignatures.incrementAndGet();
        exchange.sendResponseHeaders(401, -1);
        return;
      }
      synchronized (accepted) {
        accepted.add(notice);
      }
      exchange.sendResponseHeaders(200, -1);
    }
  }

  private void silence() {
    try {
      Thread.sleep(silence.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Every opt-out accepted (verified and answered 200), in arrival order, repeats included. */
  public List<OptOutNotice> accepted() {
    synchronized (accepted) {
      return List.copyOf(accepted);
    }
  }

  /** How many times each advertising id was accepted. */
  public Map<String, Integer> countsById() {
    Map<String, Integer> counts = new HashMap<>();
    accepted().forEach(n -> counts.merge(n.advertisingId(), 1, Integer::sum));
    return counts;
  }

  /** Requests answered with a failure on purpose (500, no answer, 503). */
  public int failed() {
    return failed.get();
  }

  /** Requests whose signature or parameters did not verify. */
  public int badSignatures() {
    return badSignatures.get();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}

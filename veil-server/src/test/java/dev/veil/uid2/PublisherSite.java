package dev.veil.uid2;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A publisher's site on 127.0.0.1 and a port of its own (so another origin than the API's): {@code
 * /} is {@code prebid-page.html} (Prebid.js with the UID2 module and a bidder that records), {@code
 * /prebid-uid2.js} the bundle, and {@code POST /bid} the bidder's endpoint, which keeps each body
 * the browser sent and answers no bid.
 */
final class PublisherSite implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor = Executors.newFixedThreadPool(2);
  private final byte[] page;
  private final byte[] bundle;
  private final List<String> bidRequests = new CopyOnWriteArrayList<>();

  private PublisherSite(Path bundle) throws IOException {
    try (InputStream in = PublisherSite.class.getResourceAsStream("prebid-page.html")) {
      if (in == null) {
        throw new IllegalStateException("no prebid-page.html beside " + PublisherSite.class);
      }
      this.page = in.readAllBytes();
    }
    this.bundle = Files.readAllBytes(bundle);
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  /** Starts the site, serving {@code bundle} as {@code /prebid-uid2.js}. */
  static PublisherSite start(Path bundle) {
    try {
      return new PublisherSite(bundle);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The site's origin, e.g. {@code http://127.0.0.1:41235}. */
  String origin() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** The bodies of the bid requests received so far, oldest first. */
  List<String> bidRequests() {
    return List.copyOf(bidRequests);
  }

  void forgetBidRequests() {
    bidRequests.clear();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      if (method.equals("GET") && path.equals("/")) {
        answer(exchange, 200, "text/html; charset=utf-8", page);
      } else if (method.equals("GET") && path.equals("/prebid-uid2.js")) {
        answer(exchange, 200, "text/javascript; charset=utf-8", bundle);
      } else if (method.equals("POST") && path.equals("/bid")) {
        bidRequests.add(
            new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        answer(exchange, 200, "application/json", "{}".getBytes(StandardCharsets.UTF_8));
      } else {
        answer(exchange, 404, "text/plain", "not found".getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  private static void answer(HttpExchange exchange, int status, String type, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().add("Content-Type", type);
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}

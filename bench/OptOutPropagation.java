import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Opt-out propagation between nodes: for each of COUNT new identities, waits a random 0-1,000 ms
 * (so the opt-outs fall at random points of the other nodes' sync interval), posts
 * POST /v1/optout to the first node, and from the moment that answer arrives polls
 * GET /v1/identity/map on every other node (every POLL_MS) until each of them answers
 * {"status":"optout"}. An identity's propagation time is the time until the last node saw it.
 *
 * Prints key=value lines (prop.*): count, p50/p90/max in ms over identities, how many were not
 * seen everywhere within the timeout (the run stops after 3 of those), and the opt-out request's
 * own p50/max.
 *
 * JDK only: java bench/OptOutPropagation.java KEY COUNT TIMEOUT_MS POLL_MS URL_A URL_B [URL_C...]
 * (KEY needs the roles OPTOUT and MAPPER.)
 */
public class OptOutPropagation {
  public static void main(String[] args) throws Exception {
    if (args.length < 6) {
      System.err.println("usage: OptOutPropagation KEY COUNT TIMEOUT_MS POLL_MS URL_A URL_B [URL_C...]");
      System.exit(2);
    }
    String key = args[0];
    int count = Integer.parseInt(args[1]);
    long timeoutMs = Long.parseLong(args[2]);
    long pollMs = Long.parseLong(args[3]);
    String writer = args[4];
    List<String> readers = Arrays.asList(args).subList(5, args.length);
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();
    String run = Long.toString(System.currentTimeMillis(), 36);

    // Warm-up: one mapped identity through every node (connections, JIT of the client).
    for (String url : readers) {
      status(http, key, url, "warmup-" + run + "@example.com");
    }

    List<Double> propagation = new ArrayList<>();
    List<Double> ack = new ArrayList<>();
    int unseen = 0;
    int done = 0;
    for (int i = 0; i < count; i++) {
      Thread.sleep(ThreadLocalRandom.current().nextLong(0, 1000));
      String email = "prop-" + run + "-" + i + "@example.com";
      long sent = System.nanoTime();
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(writer + "/v1/optout"))
          .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
          .timeout(Duration.ofSeconds(10))
          .POST(HttpRequest.BodyPublishers.ofString("{\"email\":\"" + email + "\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      long acked = System.nanoTime();
      if (r.statusCode() != 200 || !r.body().contains("\"success\"")) {
        throw new IllegalStateException("opt-out answered HTTP " + r.statusCode() + ": " + r.body());
      }
      ack.add((acked - sent) / 1e6);
      List<CompletableFuture<Long>> seen = new ArrayList<>();
      for (String url : readers) {
        seen.add(CompletableFuture.supplyAsync(() -> waitForOptOut(http, key, url, email, acked, timeoutMs, pollMs)));
      }
      long last = 0;
      boolean everywhere = true;
      for (CompletableFuture<Long> f : seen) {
        long at = f.join();
        if (at < 0) {
          everywhere = false;
        } else {
          last = Math.max(last, at);
        }
      }
      if (everywhere) {
        propagation.add((last - acked) / 1e6);
      } else {
        unseen++;
      }
      done++;
      if (unseen >= 3) {
        break; // catch-up is not working; do not spend COUNT x TIMEOUT finding out
      }
    }
    propagation.sort(null);
    ack.sort(null);
    System.out.printf("prop.count=%d%n", done);
    System.out.printf("prop.readers=%d%n", readers.size());
    System.out.printf("prop.unseen=%d%n", unseen);
    if (!propagation.isEmpty()) {
      System.out.printf("prop.p50_ms=%.0f%n", pct(propagation, 0.50));
      System.out.printf("prop.p90_ms=%.0f%n", pct(propagation, 0.90));
      System.out.printf("prop.max_ms=%.0f%n", propagation.get(propagation.size() - 1));
      System.out.printf("prop.min_ms=%.0f%n", propagation.get(0));
    }
    System.out.printf("prop.ack_p50_ms=%.1f%n", pct(ack, 0.50));
    System.out.printf("prop.ack_max_ms=%.1f%n", ack.get(ack.size() - 1));
  }

  /** The nanoTime at which url first answered optout for email, or -1 after the timeout. */
  private static long waitForOptOut(HttpClient http, String key, String url, String email, long since,
      long timeoutMs, long pollMs) {
    try {
      while (System.nanoTime() - since < timeoutMs * 1_000_000L) {
        if (status(http, key, url, email).contains("\"optout\"")) {
          return System.nanoTime();
        }
        Thread.sleep(pollMs);
      }
      return -1;
    } catch (Exception e) {
      throw new IllegalStateException("polling " + url + " failed: " + e, e);
    }
  }

  private static String status(HttpClient http, String key, String url, String email) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "/v1/identity/map?email="
              + URLEncoder.encode(email, StandardCharsets.UTF_8)))
          .header("Authorization", "Bearer " + key).timeout(Duration.ofSeconds(10)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalStateException("map answered HTTP " + r.statusCode() + " from " + url);
      }
      return r.body();
    } catch (java.io.IOException e) {
      throw new IllegalStateException("map request to " + url + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Nearest-rank percentile of a sorted list. */
  private static double pct(List<Double> sorted, double p) {
    int rank = (int) Math.ceil(p * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }
}

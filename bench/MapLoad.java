import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * For comparison with veil map: POST /v1/identity/map through a hand-written client on the JDK's
 * HttpClient, as a user might write one. The emails of a file are cut into bodies of 5,000 before
 * the clock starts, then posted over N connections (each request waits for its answer, like veil
 * map), and every answer is read whole. Prints "ids_per_s=<n> seconds=<s>". JDK only; run with:
 * java bench/MapLoad.java URL KEY FILE CONNECTIONS
 */
public class MapLoad {
  public static void main(String[] args) throws Exception {
    String url = args[0] + "/v1/identity/map";
    String key = args[1];
    List<String> emails = Files.readAllLines(Path.of(args[2]), StandardCharsets.UTF_8);
    int connections = Integer.parseInt(args[3]);
    List<byte[]> bodies = new ArrayList<>();
    for (int i = 0; i < emails.size(); i += 5000) {
      StringBuilder b = new StringBuilder("{\"email\":[");
      for (int j = i; j < Math.min(emails.size(), i + 5000); j++) {
        b.append(j > i ? ",\"" : "\"").append(emails.get(j).replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
      }
      bodies.add(b.append("]}").toString().getBytes(StandardCharsets.UTF_8));
    }
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    for (int i = 0; i < Math.min(20, bodies.size()); i++) {
      post(http, url, key, bodies.get(i)); // warm-up: JIT on both sides
    }
    ExecutorService pool = Executors.newFixedThreadPool(connections);
    AtomicInteger next = new AtomicInteger();
    long start = System.nanoTime();
    List<Future<Long>> workers = new ArrayList<>();
    for (int c = 0; c < connections; c++) {
      workers.add(pool.submit(() -> {
        long bytes = 0;
        for (int i = next.getAndIncrement(); i < bodies.size(); i = next.getAndIncrement()) {
          bytes += post(http, url, key, bodies.get(i));
        }
        return bytes;
      }));
    }
    for (Future<Long> w : workers) {
      w.get();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    pool.shutdown();
    System.out.printf("ids_per_s=%.0f seconds=%.2f%n", emails.size() / seconds, seconds);
  }

  private static long post(HttpClient http, String url, String key, byte[] body)
      throws IOException, InterruptedException {
    HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(url))
        .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("HTTP " + r.statusCode());
    }
    return r.body().length;
  }
}

package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.client.Role;
import dev.veil.http.testing.TestNode;
import dev.veil.sdk.CacheReport;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.MappingCache;
import dev.veil.sdk.RetryPolicy;
import dev.veil.sdk.VeilApiException;
import dev.veil.sdk.VeilClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link MappingCache} run under a key whose rate limit ({@code limits.rate-limit-per-second=2},
 * a fixed window of one second of the node's clock) it exceeds all the time, with four requests in
 * flight: by default the run waits out the 429s; a client given a retry policy of four attempts
 * stops, as documented.
 */
class MappingCacheRateLimitIT {
  @TempDir Path dir;
  private final TestNode node = TestNode.start(Map.of("limits.rate-limit-per-second", "2"));
  private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void stop() {
    ticker.shutdownNow();
    node.close();
  }

  private VeilClient.Builder client() {
    return VeilClient.builder()
        .baseUrl("http://127.0.0.1:" + node.port())
        .apiKey(node.newApiKey(Role.MAPPER))
        .batchSize(500);
  }

  private static List<Identifier> emails(int count) {
    return IntStream.range(0, count)
        .mapToObj(i -> Identifier.email("user" + i + "@example.com"))
        .toList();
  }

  @Test
  void byDefault_aRunWaitsOutTheKeysRateLimit_andMapsEverything() {
    // The node's clock moves a second every 1.5 s of real time: about two requests get through per
    // 1.5 s.
    var unused =
        ticker.scheduleAtFixedRate(
            () -> node.clock().advance(Duration.ofSeconds(1)), 1500, 1500, TimeUnit.MILLISECONDS);
    try (MappingCache cache =
        client()
            .build()
            .mappingCache(dir.resolve("audience.veil-cache"))
            .requestsInFlight(4)
            .build()) {
      cache.add(emails(10_000)); // 20 requests: ten windows of the rate limit

      CacheReport report = cache.mapPending();

      assertThat(report.mapped()).isEqualTo(10_000);
      assertThat(cache.pendingCount()).isZero();
      assertThat(cache.get(Identifier.email("user9999@example.com"))).isPresent();
    }
  }

  @Test
  void aRetryPolicyGivenToTheClient_appliesToItsCaches_andFourAttemptsStopAtTheLimit() {
    // The node's clock stands still: the key's window never ends.
    try (MappingCache cache =
        client()
            .retryPolicy(RetryPolicy.defaults())
            .build()
            .mappingCache(dir.resolve("audience.veil-cache"))
            .build()) {
      cache.add(emails(2_000));

      assertThatThrownBy(cache::mapPending)
          .isInstanceOfSatisfying(
              VeilApiException.class,
              e -> {
                assertThat(e.httpStatus()).isEqualTo(429);
                assertThat(e.attempts()).isEqualTo(4);
              });
      assertThat(cache.pendingCount()).isEqualTo(1_000); // the first two requests got through
    }
  }
}

package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Retries and backoff, through a fake transport and a sleeper that records instead of sleeping. */
class RetryTest {
  private final FakeVeil server =
      new FakeVeil(new TestClock(Instant.parse("2026-03-01T12:00:00Z")), 8);
  private final List<Duration> waits = new ArrayList<>();

  private IdentityMapClient mapper(RetryPolicy policy, double random) {
    return server
        .client()
        .retryPolicy(policy)
        .sleeper(waits::add)
        .random(() -> random)
        .build()
        .mapper();
  }

  private IdentityMapClient mapper() {
    return mapper(RetryPolicy.builder().jitter(0).build(), 0);
  }

  private static Identifier email() {
    return Identifier.email("user@example.com");
  }

  @Test
  void transportFailures_areRetriedWithExponentialBackoff_thenSucceed() {
    server.script.add(new ConnectException("refused"));
    server.script.add(new HttpTimeoutException("timed out"));

    MapOutcome outcome = mapper().map(email());

    assertThat(outcome).isInstanceOf(MapOutcome.Mapped.class);
    assertThat(waits).containsExactly(Duration.ofMillis(200), Duration.ofMillis(400));
    assertThat(server.requests).hasSize(3);
  }

  @Test
  void status503And429_areRetried_andRetryAfterRaisesTheWait() {
    server.script.add(503);
    server.script.add(429);

    assertThat(mapper().map(email())).isInstanceOf(MapOutcome.Mapped.class);

    assertThat(waits).containsExactly(Duration.ofMillis(200), Duration.ofSeconds(1));
  }

  @Test
  void otherRefusals_areNotRetried_andCarryStatusAndMessage() {
    for (int status : new int[] {400, 401, 404, 413, 500}) {
      server.script.add(status);
      assertThatThrownBy(() -> mapper().map(email()))
          .isInstanceOfSatisfying(
              VeilApiException.class,
              e -> {
                assertThat(e.httpStatus()).isEqualTo(status);
                assertThat(e.status()).isEqualTo("unknown");
                assertThat(e.serverMessage()).isEqualTo("scripted " + status);
                assertThat(e.attempts()).isEqualTo(1);
                assertThat(e.isRetryable()).isFalse();
              });
    }
    assertThat(waits).isEmpty();
    assertThat(server.requests).hasSize(5);
  }

  @Test
  void transportFailures_exhaustTheAttempts_thenTransportException() {
    for (int i = 0; i < 4; i++) {
      server.script.add(new IOException("reset"));
    }

    assertThatThrownBy(() -> mapper().map(email()))
        .isInstanceOfSatisfying(
            VeilTransportException.class,
            e -> {
              assertThat(e.attempts()).isEqualTo(4);
              assertThat(e.getCause()).hasMessage("reset");
              assertThat(e.getMessage())
                  .startsWith("POST /v1/identity/map failed after 4 attempt(s)");
            });
    assertThat(waits)
        .containsExactly(Duration.ofMillis(200), Duration.ofMillis(400), Duration.ofMillis(800));
  }

  @Test
  void status503_onEveryAttempt_endsAsApiException() {
    for (int i = 0; i < 4; i++) {
      server.script.add(503);
    }

    assertThatThrownBy(() -> mapper().map(email()))
        .isInstanceOfSatisfying(
            VeilApiException.class,
            e -> {
              assertThat(e.httpStatus()).isEqualTo(503);
              assertThat(e.attempts()).isEqualTo(4);
              assertThat(e.isRetryable()).isTrue();
            });
  }

  @Test
  void status429_isRetriedUpToTheRateLimitedAttempts_whileFailuresKeepMaxAttempts() {
    RetryPolicy policy = RetryPolicy.builder().jitter(0).rateLimitedAttempts(12).build();
    for (int i = 0; i < 10; i++) {
      server.script.add(429);
    }

    assertThat(mapper(policy, 0).map(email())).isInstanceOf(MapOutcome.Mapped.class);
    assertThat(server.requests).hasSize(11);

    for (int i = 0; i < 12; i++) {
      server.script.add(429);
    }
    assertThatThrownBy(() -> mapper(policy, 0).map(email()))
        .isInstanceOfSatisfying(
            VeilApiException.class, e -> assertThat(e.attempts()).isEqualTo(12));
    server.script.clear();

    for (int i = 0; i < 4; i++) {
      server.script.add(503);
    }
    assertThatThrownBy(() -> mapper(policy, 0).map(email()))
        .isInstanceOfSatisfying(VeilApiException.class, e -> assertThat(e.attempts()).isEqualTo(4));
    assertThat(RetryPolicy.defaults().rateLimitedAttempts()).isEqualTo(4);
    assertThatThrownBy(() -> RetryPolicy.builder().rateLimitedAttempts(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void backoff_isCappedByMaxBackoff_andJitterTakesOffAShare() {
    RetryPolicy policy =
        RetryPolicy.builder()
            .maxAttempts(5)
            .initialBackoff(Duration.ofMillis(200))
            .maxBackoff(Duration.ofMillis(500))
            .jitter(0.2)
            .build();
    for (int i = 0; i < 4; i++) {
      server.script.add(new IOException("reset"));
    }

    mapper(policy, 0.5).map(email());

    assertThat(waits)
        .containsExactly(
            Duration.ofMillis(180),
            Duration.ofMillis(360),
            Duration.ofMillis(450),
            Duration.ofMillis(450));
  }

  @Test
  void noRetryPolicy_sendsOnce() {
    server.script.add(new IOException("reset"));

    assertThatThrownBy(() -> mapper(RetryPolicy.none(), 0).map(email()))
        .isInstanceOfSatisfying(
            VeilTransportException.class, e -> assertThat(e.attempts()).isEqualTo(1));
    assertThat(waits).isEmpty();
  }

  @Test
  void interruptedWhileWaiting_stopsAndKeepsTheInterruptFlag() {
    server.script.add(new IOException("reset"));
    IdentityMapClient mapper =
        server
            .client()
            .sleeper(
                d -> {
                  throw new InterruptedException();
                })
            .build()
            .mapper();

    try {
      assertThatThrownBy(() -> mapper.map(email()))
          .isInstanceOf(VeilTransportException.class)
          .hasMessageContaining("interrupted");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void interruptedWhileWaitingForAnAnswer_stopsWhenTheAttemptEnds_withoutRetrying()
      throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      CountDownLatch requestArrived = new CountDownLatch(1);
      Thread acceptor =
          new Thread(
              () -> {
                try (Socket s = silent.accept()) {
                  s.getInputStream().read(); // the request has come; no answer is ever sent
                  requestArrived.countDown();
                  s.getInputStream().read(); // until the client closes the connection
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      acceptor.start();
      IdentityMapClient mapper =
          VeilClient.builder()
              .baseUrl("http://127.0.0.1:" + silent.getLocalPort())
              .apiKey("vk1.test")
              .requestTimeout(Duration.ofSeconds(1))
              .build()
              .mapper(); // the default retries
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      AtomicBoolean flagKept = new AtomicBoolean();
      Thread caller =
          new Thread(
              () -> {
                try {
                  mapper.map(email());
                } catch (RuntimeException e) {
                  thrown.set(e);
                  flagKept.set(Thread.currentThread().isInterrupted());
                }
              });
      caller.start();
      assertThat(requestArrived.await(30, TimeUnit.SECONDS)).isTrue();

      caller.interrupt(); // seen when the attempt times out (a JDK socket does not look at it while
      // it waits)
      caller.join(30_000); // four attempts of a second each would be over 5 s; no retry follows

      assertThat(caller.isAlive()).isFalse();
      assertThat(thrown.get())
          .isInstanceOfSatisfying(
              VeilTransportException.class,
              e -> {
                assertThat(e).hasMessageContaining("interrupted");
                assertThat(e.attempts()).isEqualTo(1);
              });
      assertThat(flagKept).isTrue();
      acceptor.join(30_000);
      assertThat(acceptor.isAlive()).as("the connection was closed").isFalse();
    }
  }

  @Test
  void settingsTheClientCannotHonour_areRefusedWhenSet() {
    VeilClient.Builder b = VeilClient.builder();
    assertThatThrownBy(() -> b.requestTimeout(Duration.ofNanos(500_000)))
        .hasMessageContaining("1 ms to 24 days");
    assertThatThrownBy(() -> b.connectTimeout(Duration.ofSeconds(Long.MAX_VALUE)))
        .hasMessageContaining("1 ms to 24 days");
    assertThatThrownBy(() -> RetryPolicy.builder().maxBackoff(Duration.ofDays(365L * 1000)))
        .hasMessageContaining("maxBackoff must be 0 to 365 days");
    assertThatThrownBy(() -> b.baseUrl("http://127.0.0.1:99999"))
        .hasMessageContaining("port must be 1 to 65535");
  }

  @Test
  void retryPolicy_rejectsNonsense() {
    assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RetryPolicy.builder().jitter(1.5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RetryPolicy.builder().multiplier(0.5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                RetryPolicy.builder()
                    .initialBackoff(Duration.ofSeconds(2))
                    .maxBackoff(Duration.ofSeconds(1))
                    .build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void errorBodyThatIsNotJson_stillGivesAnApiException() {
    RetryPolicy once = RetryPolicy.none();
    IdentityMapClient mapper =
        VeilClient.builder()
            .baseUrl("http://fake.test")
            .transport(
                request ->
                    FakeVeil.answer(502, "<html>bad gateway</html>", java.util.Optional.empty()))
            .retryPolicy(once)
            .build()
            .mapper();

    assertThatThrownBy(() -> mapper.map(email()))
        .isInstanceOfSatisfying(
            VeilApiException.class,
            e -> {
              assertThat(e.httpStatus()).isEqualTo(502);
              assertThat(e.status()).isEqualTo("unknown");
              assertThat(e.serverMessage()).isEqualTo("HTTP 502 without a Veil error message");
            });
  }
}

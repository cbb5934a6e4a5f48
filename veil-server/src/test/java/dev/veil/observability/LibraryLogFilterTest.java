package dev.veil.observability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import dev.veil.testing.Await;
import dev.veil.testing.CapturedLogs;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What Vert.x, Netty and HikariCP log through SLF4J themselves, under the tests' logback
 * configuration (which declares {@link LibraryLogFilter} as {@code logback.xml} does): each
 * library, made to log a message and an exception that quote an address, leaves one {@code
 * event=library_log} line under its own logger and level, with the exception's class and never the
 * address.
 */
class LibraryLogFilterTest {
  private static final String MARKER = "victim.person@example.com";

  @Test
  void vertx_anUnhandledExceptionQuotingInput_isLoggedWithoutItsMessage() throws Exception {
    Vertx vertx = Vertx.vertx();
    List<String> lines;
    try (CapturedLogs logs = CapturedLogs.of("io.vertx")) {
      vertx.runOnContext(
          v -> {
            throw new IllegalStateException("bad input " + MARKER);
          });
      Await.until(Duration.ofSeconds(10), "Vert.x's line", () -> !logs.messages().isEmpty());
      lines = logs.messages();
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get();
    }

    assertThat(lines)
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .startsWith("event=library_log source=io.vertx.core.impl.ContextImpl method=")
                    .endsWith(" exception=java.lang.IllegalStateException")
                    .doesNotContain(MARKER));
  }

  @Test
  void netty_aFailingListenerQuotingInput_isLoggedWithoutItsMessage() {
    Promise<Void> promise = new DefaultPromise<>(ImmediateEventExecutor.INSTANCE);
    promise.addListener(
        done -> {
          throw new IllegalArgumentException("peer sent " + MARKER);
        });
    try (CapturedLogs logs = CapturedLogs.of("io.netty")) {
      promise.setSuccess(null);

      assertThat(logs.messages())
          .singleElement()
          .satisfies(
              line ->
                  assertThat(line)
                      .startsWith(
                          "event=library_log source=io.netty.util.concurrent.DefaultPromise"
                              + " method=notifyListener0 ")
                      .endsWith(" exception=java.lang.IllegalArgumentException")
                      .doesNotContain(MARKER));
    }
  }

  @Test
  void hikari_aConfigurationWarningNamingThePool_isLoggedWithoutItsArguments() {
    HikariConfig config = new HikariConfig();
    config.setPoolName("pool-" + MARKER);
    config.setJdbcUrl("jdbc:sqlite::memory:");
    config.setMaxLifetime(
        10_000); // under Hikari's minimum: "<pool> - maxLifetime is less than 30000ms, ..."
    try (CapturedLogs logs = CapturedLogs.of("com.zaxxer.hikari")) {
      config.validate();

      assertThat(logs.messages())
          .singleElement()
          .isEqualTo(
              "event=library_log source=com.zaxxer.hikari.HikariConfig method=validateNumerics"
                  + " exception=none");
    }
  }

  @Test
  void veilsOwnLines_keepTheirMessage() {
    org.slf4j.Logger own = org.slf4j.LoggerFactory.getLogger("dev.veil.server.Example");
    try (CapturedLogs logs = CapturedLogs.of("dev.veil.server.Example")) {
      own.warn("event=example count={}", 3);

      assertThat(logs.messages()).containsExactly("event=example count=3");
    }
  }
}

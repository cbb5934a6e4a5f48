package dev.veil.observability;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * {@link LibraryLogs} with the tests' logback configuration ({@code io.grpc} and {@code io.netty}
 * at WARN), its events captured where logback receives them. JUL settings are per JVM: each test
 * sets them as it needs and leaves the libraries routed.
 */
class LibraryLogsTest {
  private static final String EMAIL = "victim.person@example.com";

  private final ListAppender<ILoggingEvent> captured = new ListAppender<>();
  private final Logger grpcRoot = (Logger) LoggerFactory.getLogger("io.grpc");
  private final Logger nettyRoot = (Logger) LoggerFactory.getLogger("io.netty");

  @BeforeEach
  void capture() {
    captured.start();
    grpcRoot.addAppender(captured);
    nettyRoot.addAppender(captured);
  }

  @AfterEach
  void release() {
    grpcRoot.detachAppender(captured);
    nettyRoot.detachAppender(captured);
    LibraryLogs.routeToApplicationLog();
  }

  @Test
  void routed_warning_becomesOneEventWithoutMessageOrStack() {
    LibraryLogs.routeToApplicationLog();
    IOException cause = new IOException("peer sent " + EMAIL);

    java.util.logging.Logger.getLogger("io.grpc.netty.SomeTransport")
        .log(
            Level.WARNING,
            "Transport failed for " + EMAIL,
            new IllegalStateException(EMAIL, cause));

    assertThat(captured.list).hasSize(1);
    ILoggingEvent event = captured.list.get(0);
    assertThat(event.getLoggerName()).isEqualTo("io.grpc.netty.SomeTransport");
    assertThat(event.getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN);
    assertThat(event.getFormattedMessage())
        .isEqualTo(
            "event=library_log source=io.grpc.netty.SomeTransport"
                + " method=routed_warning_becomesOneEventWithoutMessageOrStack"
                + " exception=java.lang.IllegalStateException,java.io.IOException");
    assertThat(event.getThrowableProxy()).isNull();
  }

  @Test
  void routed_levels_followLogback() {
    LibraryLogs.routeToApplicationLog();
    java.util.logging.Logger netty = java.util.logging.Logger.getLogger("io.netty.util.Something");

    netty.info("below WARN: " + EMAIL);
    netty.fine("below WARN");
    netty.severe("an error, no exception");

    assertThat(captured.list)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.ERROR);
              assertThat(e.getFormattedMessage())
                  .endsWith(" exception=none")
                  .doesNotContain("an error");
            });
    assertThat(java.util.logging.Logger.getLogger("io.netty").getLevel())
        .as("records logback would drop are not even made")
        .isEqualTo(Level.WARNING);
  }

  @Test
  void routed_recordsNeverReachTheConsoleHandler() {
    LibraryLogs.routeToApplicationLog();

    for (String name : LibraryLogs.LIBRARIES) {
      java.util.logging.Logger logger = java.util.logging.Logger.getLogger(name);
      assertThat(logger.getUseParentHandlers()).isFalse();
      assertThat(logger.getHandlers()).singleElement().isInstanceOf(LibraryLogs.class);
    }
  }

  @Test
  void routedTwice_stillOneEventPerRecord() {
    LibraryLogs.routeToApplicationLog();
    LibraryLogs.routeToApplicationLog();

    java.util.logging.Logger.getLogger("io.grpc.X").warning("once");

    assertThat(captured.list).hasSize(1);
  }

  @Test
  void silenced_recordsGoNowhere() {
    LibraryLogs.silence();
    java.util.logging.Logger grpc = java.util.logging.Logger.getLogger("io.grpc.internal.Y");

    grpc.log(Level.SEVERE, "failed: " + EMAIL, new IllegalStateException(EMAIL));

    assertThat(captured.list).isEmpty();
    assertThat(grpc.isLoggable(Level.SEVERE)).isFalse();
    assertThat(java.util.logging.Logger.getLogger("io.grpc").getUseParentHandlers()).isFalse();
  }

  @Test
  void exceptionClasses_stopAtACycleAndAfterEightCauses() {
    IllegalStateException a = new IllegalStateException();
    IllegalArgumentException b = new IllegalArgumentException(a);
    a.initCause(b);
    Throwable deep = new Error();
    for (int i = 0; i < 12; i++) {
      deep = new RuntimeException(deep);
    }

    assertThat(LibraryLogs.exceptionClasses(a))
        .isEqualTo("java.lang.IllegalStateException,java.lang.IllegalArgumentException");
    assertThat(LibraryLogs.exceptionClasses(deep).split(",")).hasSize(9).endsWith("...");
    assertThat(LibraryLogs.exceptionClasses(null)).isEqualTo("none");
  }

  @Test
  void levels_mapToSlf4j() {
    assertThat(LibraryLogs.slf4jLevel(Level.SEVERE)).isEqualTo(org.slf4j.event.Level.ERROR);
    assertThat(LibraryLogs.slf4jLevel(Level.WARNING)).isEqualTo(org.slf4j.event.Level.WARN);
    assertThat(LibraryLogs.slf4jLevel(Level.INFO)).isEqualTo(org.slf4j.event.Level.INFO);
    assertThat(LibraryLogs.slf4jLevel(Level.CONFIG)).isEqualTo(org.slf4j.event.Level.DEBUG);
    assertThat(LibraryLogs.slf4jLevel(Level.FINE)).isEqualTo(org.slf4j.event.Level.DEBUG);
    assertThat(LibraryLogs.slf4jLevel(Level.FINEST)).isEqualTo(org.slf4j.event.Level.TRACE);
  }
}

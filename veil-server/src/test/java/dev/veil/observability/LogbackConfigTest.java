package dev.veil.observability;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The production {@code logback.xml} (tests run under {@code logback-test.xml}), lines as it prints
 * them: what libraries log through SLF4J themselves comes out as one {@code event=library_log} line
 * each, with logger, level, calling method and exception class, without the message, its arguments
 * or a stack trace (docs/spec.md 9); Veil's own lines keep their message.
 */
class LogbackConfigTest {
  private static final String EMAIL = "victim.person@example.com";
  private static final String LIBRARY_LINE =
      "\\S+ level=(WARN|ERROR) logger=\\S+ event=library_log source=\\S+ method=\\S+"
          + " exception=\\S+";

  private final LoggerContext context = new LoggerContext();
  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

  @BeforeEach
  @SuppressWarnings("unchecked")
  void configure() throws Exception {
    context.setMDCAdapter(new LogbackMDCAdapter()); // what logback's own start-up gives its context
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(LogbackConfigTest.class.getResource("/logback.xml"));
    ((OutputStreamAppender<ILoggingEvent>)
            context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDOUT"))
        .setOutputStream(printed);
  }

  @AfterEach
  void stop() {
    context.stop();
  }

  @Test
  void libraryWarningsAndErrors_areOneLineEach_withoutMessageArgumentsOrStack() {
    List<String> netty =
        print(
            "io.netty.bootstrap.ServerBootstrap",
            l ->
                l.warn(
                    "Failed to register an accepted channel: {}",
                    EMAIL,
                    new IllegalStateException(EMAIL)));
    List<String> vertx =
        print(
            "io.vertx.core.impl.ContextImpl",
            l ->
                l.error(
                    "Unhandled exception",
                    new IllegalArgumentException("bad\n" + EMAIL, new java.io.IOException())));
    List<String> hikari =
        print(
            "com.zaxxer.hikari.pool.HikariPool",
            l -> l.error("{} - Exception during pool initialization: " + EMAIL, "pool"));

    for (List<String> lines : List.of(netty, vertx, hikari)) {
      assertThat(lines)
          .singleElement()
          .satisfies(line -> assertThat(line).matches(LIBRARY_LINE).doesNotContain(EMAIL));
    }
    assertThat(netty.get(0))
        .contains(
            " level=WARN logger=ServerBootstrap ",
            " source=io.netty.bootstrap.ServerBootstrap method=lambda$",
            " exception=java.lang.IllegalStateException");
    assertThat(vertx.get(0))
        .contains(
            " level=ERROR ", " exception=java.lang.IllegalArgumentException,java.io.IOException");
    assertThat(hikari.get(0)).endsWith(" exception=none");
  }

  @Test
  void libraryLinesBelowWarn_areNotPrinted() {
    assertThat(print("io.vertx.core.net.impl.ConnectionBase", l -> l.info("connected " + EMAIL)))
        .isEmpty();
  }

  @Test
  void veilsOwnLines_keepTheirMessage() {
    assertThat(print("dev.veil.server.VeilServer", l -> l.info("event=started port={}", 8080)))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line).endsWith(" level=INFO logger=VeilServer event=started port=8080"));
  }

  /** What the production configuration prints when {@code logger} logs as {@code call} does. */
  private List<String> print(String logger, Consumer<org.slf4j.Logger> call) {
    printed.reset();
    call.accept(context.getLogger(logger));
    return printed.toString(StandardCharsets.UTF_8).lines().toList();
  }
}

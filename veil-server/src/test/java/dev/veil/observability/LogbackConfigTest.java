package dev.veil.observability;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The production {@code logback.xml} (tests run under {@code logback-test.xml}): what libraries log
 * through SLF4J themselves comes out as one {@code event=library_log} line each, without a stack
 * trace (docs/spec.md 9).
 */
class LogbackConfigTest {
  @Test
  void libraryWarnings_withAnException_areOneLineEach() throws Exception {
    LoggerContext context = new LoggerContext();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(LogbackConfigTest.class.getResource("/logback.xml"));

    List<String> netty = render(context, "io.netty.bootstrap.ServerBootstrap",
        "Failed to register an accepted channel: [id: 0x3cac42c5]", new IllegalStateException());
    List<String> vertx = render(context, "io.vertx.core.impl.ContextImpl", "Unhandled exception",
        new IllegalArgumentException("bad\nthing"));

    for (List<String> lines : List.of(netty, vertx)) {
      assertThat(lines).singleElement().satisfies(line -> assertThat(line)
          .matches("\\S+ level=WARN logger=\\S+ event=library_log msg=\"[^\"]*\" exception=\"[^\"]*\""));
    }
    assertThat(netty.get(0)).contains("logger=ServerBootstrap", "exception=\"java.lang.IllegalStateException");
    context.stop();
  }

  /** What each appender a WARN event of {@code loggerName} reaches prints for it, line by line. */
  private static List<String> render(LoggerContext context, String loggerName, String message, Throwable thrown) {
    Logger logger = context.getLogger(loggerName);
    LoggingEvent event = new LoggingEvent(Logger.class.getName(), logger, Level.WARN, message, thrown, null);
    List<String> lines = new ArrayList<>();
    for (Logger l = logger; l != null; l = parent(context, l)) {
      for (Iterator<Appender<ILoggingEvent>> it = l.iteratorForAppenders(); it.hasNext(); ) {
        Appender<ILoggingEvent> appender = it.next();
        byte[] bytes = ((OutputStreamAppender<ILoggingEvent>) appender).getEncoder().encode(event);
        lines.addAll(new String(bytes, StandardCharsets.UTF_8).lines().toList());
      }
      if (!l.isAdditive()) {
        break;
      }
    }
    return lines;
  }

  private static Logger parent(LoggerContext context, Logger logger) {
    String name = logger.getName();
    if (name.equals(Logger.ROOT_LOGGER_NAME)) {
      return null;
    }
    int dot = name.lastIndexOf('.');
    return context.getLogger(dot < 0 ? Logger.ROOT_LOGGER_NAME : name.substring(0, dot));
  }
}

package dev.veil.testing;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The log events of one logger while open, for tests of what a component logs (and never logs):
 * {@code try (CapturedLogs logs = CapturedLogs.of(Foo.class)) { ...; assertThat(logs.messages())...
 * }}.
 */
public final class CapturedLogs implements AutoCloseable {
  private final Logger logger;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private CapturedLogs(Logger logger) {
    this.logger = logger;
    appender.start();
    logger.addAppender(appender);
  }

  /** Captures the events of the logger of {@code type}. */
  public static CapturedLogs of(Class<?> type) {
    return new CapturedLogs((Logger) LoggerFactory.getLogger(type));
  }

  /** Captures the events of the logger named {@code name}. */
  public static CapturedLogs of(String name) {
    return new CapturedLogs((Logger) LoggerFactory.getLogger(name));
  }

  /** The formatted messages logged so far, oldest first. */
  public List<String> messages() {
    return appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
  }
}

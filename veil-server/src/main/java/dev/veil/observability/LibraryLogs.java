package dev.veil.observability;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the {@code java.util.logging} (JUL) records of gRPC and Netty go. grpc-java, and the Netty
 * inside it, log through JUL, whose default console handler bypasses the application's log: it
 * prints a record on two or more lines, with its message and its whole stack trace, and those can
 * quote what a peer sent (a request line with an email in its query, for one). docs/spec.md 9 wants
 * one structured line per event and never an email.
 *
 * <ul>
 *   <li>{@link #routeToApplicationLog()} ({@code veil serve}) sends each record to the SLF4J logger
 *       of the same name as one line: {@code event=library_log source=<JUL logger> method=<source
 *       method> exception=<class names of the thrown exception and its causes>}, at the matching
 *       level ({@code SEVERE} error, {@code WARNING} warn, {@code INFO} info, {@code CONFIG} and
 *       {@code FINE} debug, finer trace). Never the message, its parameters or a stack trace. The
 *       levels of {@code logback.xml} apply ({@code io.grpc} and {@code io.netty}: warn). What
 *       libraries log through SLF4J becomes the same line ({@link LibraryLogFilter}).
 *   <li>{@link #silence()} (the CLI, which prints its own one-line errors) drops them.
 * </ul>
 *
 * <p>JUL settings are per JVM, and JUL holds its loggers weakly: the two configured loggers are
 * kept in a static field so that their settings last as long as the process. Records of other JUL
 * loggers are left as they are. Thread-safe; {@link #publish} keeps no state.
 */
public final class LibraryLogs extends Handler {
  /** The JUL logger names handled here; Netty shaded into grpc-java logs under {@code io.grpc}. */
  static final List<String> LIBRARIES = List.of("io.grpc", "io.netty");

  private static final List<Logger> CONFIGURED = LIBRARIES.stream().map(Logger::getLogger).toList();
  private static final int MAX_CAUSES = 8;

  private LibraryLogs() {}

  /** Sends the libraries' JUL records to the application's log, one structured line each. */
  public static synchronized void routeToApplicationLog() {
    for (Logger logger : CONFIGURED) {
      detachOurs(logger);
      logger.setLevel(julLevelEnabledIn(LoggerFactory.getLogger(logger.getName())));
      logger.addHandler(new LibraryLogs());
      logger.setUseParentHandlers(false);
    }
  }

  /** Drops the libraries' JUL records (and keeps them from being created). */
  public static synchronized void silence() {
    for (Logger logger : CONFIGURED) {
      detachOurs(logger);
      logger.setLevel(Level.OFF);
      logger.setUseParentHandlers(false);
    }
  }

  @Override
  public void publish(LogRecord record) {
    if (record == null) {
      return;
    }
    String name = record.getLoggerName() == null ? "java.util.logging" : record.getLoggerName();
    org.slf4j.Logger target = LoggerFactory.getLogger(name);
    org.slf4j.event.Level level = slf4jLevel(record.getLevel());
    if (!target.isEnabledForLevel(level)) {
      return;
    }
    String method = record.getSourceMethodName() == null ? "unknown" : record.getSourceMethodName();
    target
        .atLevel(level)
        .addMarker(LibraryLogFilter.LINE_MARKER)
        .log(LibraryLogFilter.LINE, name, method, exceptionClasses(record.getThrown()));
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}

  static org.slf4j.event.Level slf4jLevel(Level level) {
    int value = level.intValue();
    if (value >= Level.SEVERE.intValue()) {
      return org.slf4j.event.Level.ERROR;
    } else if (value >= Level.WARNING.intValue()) {
      return org.slf4j.event.Level.WARN;
    } else if (value >= Level.INFO.intValue()) {
      return org.slf4j.event.Level.INFO;
    } else if (value >= Level.FINE.intValue()) {
      return org.slf4j.event.Level.DEBUG;
    }
    return org.slf4j.event.Level.TRACE;
  }

  /** The lowest JUL level whose records {@code target} would log, so no other record is made. */
  private static Level julLevelEnabledIn(org.slf4j.Logger target) {
    if (target.isTraceEnabled()) {
      return Level.ALL;
    } else if (target.isDebugEnabled()) {
      return Level.FINE;
    } else if (target.isInfoEnabled()) {
      return Level.INFO;
    } else if (target.isWarnEnabled()) {
      return Level.WARNING;
    } else if (target.isErrorEnabled()) {
      return Level.SEVERE;
    }
    return Level.OFF;
  }

  /** Class names of {@code thrown} and its causes, outermost first, or {@code none}. */
  static String exceptionClasses(Throwable thrown) {
    if (thrown == null) {
      return "none";
    }
    StringJoiner names = new StringJoiner(",");
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = thrown; t != null && seen.add(t); t = t.getCause()) {
      if (seen.size() > MAX_CAUSES) {
        names.add("...");
        break;
      }
      names.add(t.getClass().getName());
    }
    return names.toString();
  }

  private static void detachOurs(Logger logger) {
    for (Handler handler : logger.getHandlers()) {
      if (handler instanceof LibraryLogs) {
        logger.removeHandler(handler);
      }
    }
  }
}

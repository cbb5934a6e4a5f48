package dev.veil.observability;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.List;
import org.slf4j.Marker;
import org.slf4j.MarkerFactory;

/**
 * What libraries log through SLF4J themselves (Vert.x, the Netty under Vert.x, HikariCP: every
 * logger outside {@code dev.veil}), reduced to the line {@link LibraryLogs} makes of gRPC's and
 * Netty's {@code java.util.logging} records: {@code event=library_log source=<logger>
 * method=<calling method> exception=<class names of the exception and its causes>}, under the same
 * logger and at the same level. Never the message, its arguments or a stack trace: a library's
 * message can quote what a peer sent (Netty's "Content-Length value is not a number: …", a
 * database's error with a row's values) and docs/spec.md 9 forbids an email in the log.
 *
 * <p>A logback turbo filter, declared in {@code logback.xml}: logback asks it about each event
 * before the level check and before any appender, so it replaces the library's event (denies it and
 * logs the line instead) before anything could print or keep it. Events below the logger's level
 * are left to logback, which drops them; Veil's own loggers ({@code dev.veil.*}) and the lines made
 * here pass untouched. Logback does not consult turbo filters for events made with SLF4J's fluent
 * API ({@code atWarn()…log()}); no library Veil uses logs that way.
 *
 * <p>Thread-safe and stateless. The calling method is found by walking the stack, which costs
 * microseconds, only for a library line that will be logged (warn and above in {@code
 * logback.xml}); any other call costs a few comparisons.
 */
public final class LibraryLogFilter extends TurboFilter {
  /** The line every library event or record becomes (also {@link LibraryLogs}'s). */
  static final String LINE = "event=library_log source={} method={} exception={}";

  /** Marks the lines made here and by {@link LibraryLogs}, which this filter lets through. */
  static final Marker LINE_MARKER = MarkerFactory.getMarker("LIBRARY_LOG");

  /** Logging frameworks and adapters between a library's call and this filter. */
  private static final List<String> LOGGING_PACKAGES =
      List.of(
          "ch.qos.logback.",
          "org.slf4j.",
          "io.vertx.core.logging.",
          "io.vertx.core.internal.logging.",
          "io.netty.util.internal.logging.",
          LibraryLogFilter.class.getName());

  private static final StackWalker STACK = StackWalker.getInstance();

  @Override
  public FilterReply decide(
      Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    Throwable thrown = t != null ? t : trailingThrowable(params);
    if ((format == null && thrown == null) // a level check (isWarnEnabled()), not an event
        || level == null
        || level.levelInt < logger.getEffectiveLevel().levelInt // logback drops it
        || logger.getName().startsWith("dev.veil.")
        || LINE_MARKER.equals(marker)) {
      return FilterReply.NEUTRAL;
    }
    logger.log(
        LINE_MARKER,
        LibraryLogFilter.class.getName(),
        Level.toLocationAwareLoggerInteger(level),
        LINE,
        new Object[] {logger.getName(), callingMethod(), LibraryLogs.exceptionClasses(thrown)},
        null);
    return FilterReply.DENY;
  }

  /** SLF4J takes a last argument that is a {@link Throwable} as the event's exception. */
  private static Throwable trailingThrowable(Object[] params) {
    return params != null
            && params.length > 0
            && params[params.length - 1] instanceof Throwable last
        ? last
        : null;
  }

  /**
   * The method that called the library's logger: the first frame outside the logging frameworks.
   */
  private static String callingMethod() {
    return STACK.walk(
        frames ->
            frames
                .filter(
                    frame -> LOGGING_PACKAGES.stream().noneMatch(frame.getClassName()::startsWith))
                .findFirst()
                .map(StackWalker.StackFrame::getMethodName)
                .orElse("unknown"));
  }
}

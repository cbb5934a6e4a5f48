package dev.veil.cli.map;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Shows how far {@code veil map} has come, on stderr: a bar redrawn in place on a terminal (count,
 * percentage, rate, time left; the total grows while the input is still being read), plain lines
 * otherwise (every few seconds and at the end of each phase), or nothing. Thread-safe: the input is
 * read on one thread while another maps.
 */
final class ProgressDisplay {
  /** How progress is shown. */
  enum Mode {
    BAR,
    LINES,
    NONE
  }

  private static final int BAR_WIDTH = 24;
  private static final long BAR_EVERY_NANOS = 100_000_000L;
  private static final long LINE_EVERY_NANOS = 5_000_000_000L;

  private final PrintWriter err;
  private final Mode mode;
  private final LongSupplier nanoTime;
  private String phase = "";
  private long phaseStart;
  private long lastShown;
  private boolean barDrawn;
  private long lastDone = -1;

  ProgressDisplay(PrintWriter err, Mode mode, LongSupplier nanoTime) {
    this.err = err;
    this.mode = mode;
    this.nanoTime = nanoTime;
  }

  /** On {@link System#nanoTime}. */
  ProgressDisplay(PrintWriter err, Mode mode) {
    this(err, mode, new SystemNanoTime());
  }

  /**
   * {@link System#nanoTime}, as a class: on the way to the first request a JVM links each lambda or
   * method reference the first time it runs, milliseconds each while the code is cold
   * (docs/benchmarks-client.md, "The way to the first request").
   */
  private static final class SystemNanoTime implements LongSupplier {
    @Override
    public long getAsLong() {
      return System.nanoTime();
    }
  }

  /**
   * The mode for {@code --progress auto}: a bar when the progress's stream, stderr, is a terminal,
   * else lines. {@link System#console()} alone says whether stdin and stdout are: with {@code 2>
   * map.log} on a terminal the bar's redraws went into the file, and with {@code > out.txt} the
   * terminal got lines. Where the system names the file behind stderr ({@code /proc/self/fd/2} on
   * Linux) that decides; elsewhere the console does.
   */
  @SuppressWarnings(
      "SystemConsoleNull") // Java 17-21 say "no terminal" by null; the link decides on Linux
  static Mode auto() {
    return auto(Path.of("/proc/self/fd/2"), System.console() != null);
  }

  /**
   * {@link #auto()} with the link that names stderr's file ({@code fd2}) and whether there is a
   * console, for tests.
   */
  static Mode auto(Path fd2, boolean console) {
    String target;
    try {
      target = Files.readSymbolicLink(fd2).toString();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return console ? Mode.BAR : Mode.LINES; // no such link here
    }
    return target.startsWith("/dev/pts/")
            || target.startsWith("/dev/tty")
            || target.equals("/dev/console")
        ? Mode.BAR
        : Mode.LINES;
  }

  /** Starts a phase (mapping, writing): its progress and rate are measured from now. */
  synchronized void phase(String name) {
    finishBar();
    phase = name;
    phaseStart = nanoTime.getAsLong();
    lastShown = phaseStart;
    lastDone = -1;
  }

  /** Seconds since the phase started. */
  synchronized double phaseSeconds() {
    return (nanoTime.getAsLong() - phaseStart) / 1e9;
  }

  /** Identifiers answered so far in this phase, and about how many there are. */
  synchronized void progress(long done, long total) {
    show(done, total, done >= total);
  }

  /** Ends a bar line, so that what follows starts on a new line. */
  synchronized void finishBar() {
    if (barDrawn) {
      err.println();
      err.flush();
      barDrawn = false;
    }
  }

  /** A line of its own (summary, warning), after any bar. */
  synchronized void message(String text) {
    finishBar();
    if (mode != Mode.NONE) {
      err.println("veil map: " + text);
      err.flush();
    }
  }

  private void show(long done, long total, boolean last) {
    long now = nanoTime.getAsLong();
    long every = mode == Mode.BAR ? BAR_EVERY_NANOS : LINE_EVERY_NANOS;
    if (mode == Mode.NONE || done == lastDone || (!last && now - lastShown < every)) {
      return;
    }
    lastShown = now;
    lastDone = done;
    String text = describe(done, total, now - phaseStart);
    if (mode == Mode.BAR) {
      err.print("\r" + text + "   ");
      barDrawn = true;
    } else {
      err.println("veil map: " + text);
    }
    err.flush();
  }

  /** E.g. {@code mapping [=========> ] 45% 450,000/1,000,000 92,000/s 0:06 left}. */
  String describe(long done, long total, long elapsedNanos) {
    double seconds = elapsedNanos / 1e9;
    long rate = seconds > 0 ? Math.round(done / seconds) : 0;
    int percent = total == 0 ? 100 : (int) (100 * done / total);
    String left =
        rate > 0
            ? clock(Duration.ofSeconds((total - done + rate - 1) / rate)) + " left"
            : "-:-- left";
    String bar = mode == Mode.BAR ? " " + bar(done, total) : "";
    String pct = Integer.toString(percent);
    return phase
        + bar
        + " "
        + "   ".substring(Math.min(3, pct.length()))
        + pct
        + "% "
        + Numbers.grouped(done)
        + "/"
        + Numbers.grouped(total)
        + "  "
        + Numbers.grouped(rate)
        + "/s  "
        + left;
  }

  private static String bar(long done, long total) {
    int filled = total == 0 ? BAR_WIDTH : (int) (BAR_WIDTH * done / total);
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < BAR_WIDTH; i++) {
      b.append(i < filled ? '=' : i == filled ? '>' : ' ');
    }
    return b.append(']').toString();
  }

  static String clock(Duration d) {
    return Numbers.clock(d.toSeconds());
  }
}

package dev.veil.testing;

import dev.veil.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine;

/**
 * Runs a {@code veil} command that keeps running ({@code veil admin deduction watch}) in-process on
 * a thread of its own, as {@link CliRun} runs the others. Only what the command has flushed to
 * stdout is visible ({@link #lines}): a line it printed but did not flush stays hidden, as it would
 * from a program reading its output through a pipe. {@link #stop} interrupts the thread, which the
 * command takes as Ctrl-C.
 */
public final class CliStream implements AutoCloseable {
  private final StringBuilder flushed = new StringBuilder(); // guarded by this
  private final StringWriter err = new StringWriter();
  private final CompletableFuture<Integer> exit = new CompletableFuture<>();
  private final Thread thread;

  private CliStream(String... args) {
    PrintWriter out = new PrintWriter(new FlushedWriter(), false);
    thread =
        new Thread(
            () -> {
              try {
                exit.complete(
                    new CommandLine(new Main())
                        .setOut(out)
                        .setErr(new PrintWriter(err, true))
                        .execute(args));
              } catch (RuntimeException | Error e) {
                exit.completeExceptionally(e);
              } finally {
                synchronized (this) {
                  notifyAll();
                }
              }
            },
            "veil-cli-stream");
    thread.setDaemon(true);
  }

  /** Starts {@code veil <args>}. */
  public static CliStream start(String... args) {
    CliStream stream = new CliStream(args);
    stream.thread.start();
    return stream;
  }

  /** The complete lines flushed so far. */
  public synchronized List<String> lines() {
    String text = flushed.toString();
    int end = text.lastIndexOf('\n');
    return end < 0 ? List.of() : text.substring(0, end).lines().toList();
  }

  /**
   * The lines flushed once there are at least {@code count}, waiting up to {@code timeout}.
   *
   * @throws AssertionError if fewer arrive in time (or the command ends first), naming them
   */
  public synchronized List<String> awaitLines(int count, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (lines().size() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || (exit.isDone() && lines().size() < count)) {
        throw new AssertionError(
            "expected "
                + count
                + " lines within "
                + timeout
                + ", got "
                + lines()
                + (exit.isDone() ? "; the command ended: " + describeExit() : ""));
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return lines();
  }

  /** The exit code, once the command has ended by itself, waiting up to {@code timeout}. */
  public int awaitExit(Duration timeout) throws InterruptedException {
    try {
      return exit.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("the command threw", e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("the command did not end within " + timeout + "; " + lines(), e);
    }
  }

  /** Stops the command as Ctrl-C would and returns its exit code. */
  public int stop(Duration timeout) throws InterruptedException {
    thread.interrupt();
    return awaitExit(timeout);
  }

  /** What the command printed on stderr. */
  public String err() {
    return err.toString();
  }

  private String describeExit() {
    try {
      return "exit code " + exit.getNow(null) + ", stderr: " + err;
    } catch (RuntimeException e) {
      return e.toString();
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (!exit.isDone()) {
      stop(Duration.ofSeconds(10));
    }
  }

  /** Keeps what is written until it is flushed, then shows it in {@link #lines}. */
  private final class FlushedWriter extends Writer {
    private final StringBuilder pending = new StringBuilder(); // guarded by CliStream.this

    @Override
    public void write(char[] chars, int offset, int length) {
      synchronized (CliStream.this) {
        pending.append(chars, offset, length);
      }
    }

    @Override
    public void flush() {
      synchronized (CliStream.this) {
        flushed.append(pending);
        pending.setLength(0);
        CliStream.this.notifyAll();
      }
    }

    @Override
    public void close() {
      flush();
    }
  }
}

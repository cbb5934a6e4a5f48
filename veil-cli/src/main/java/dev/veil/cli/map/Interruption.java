package dev.veil.cli.map;

import java.io.PrintWriter;
import java.nio.file.Path;

/**
 * What {@code veil map} does when it is stopped in the middle of a run (Ctrl-C, SIGTERM): it says
 * where its progress is and how to resume. The files need nothing: the mapping cache is the
 * progress, safe at any point, as after a SIGKILL, and the output is only ever replaced whole.
 */
final class Interruption implements AutoCloseable {
  private final Thread hook;

  private Interruption(Thread hook) {
    this.hook = hook;
  }

  /**
   * Watches from now until {@link #close}.
   *
   * @param err where the message goes, whatever the progress mode (like the command's errors)
   * @param state the file that records the progress (the mapping cache)
   */
  static Interruption watch(ProgressDisplay display, PrintWriter err, Path state) {
    Thread hook = new Stopped(display, err, state);
    Runtime.getRuntime().addShutdownHook(hook);
    return new Interruption(hook);
  }

  /**
   * The shutdown hook (a class, not a lambda, whose linkage would cost the first request
   * milliseconds).
   */
  private static final class Stopped extends Thread {
    private final ProgressDisplay display;
    private final PrintWriter err;
    private final Path state;

    Stopped(ProgressDisplay display, PrintWriter err, Path state) {
      super("veil-map-stop");
      this.display = display;
      this.err = err;
      this.state = state;
    }

    @Override
    public void run() {
      display.finishBar();
      err.println("veil map: stopped; " + MapRun.progressKept(state));
      err.flush();
    }
  }

  /** The run ended (well or not) on its own: nothing to do at exit. */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The JVM is already exiting and runs the hook (or has): there is nothing to unregister.
    }
  }
}

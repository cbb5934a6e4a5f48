package dev.veil.cli.map;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What {@code veil map} does when it is stopped in the middle of a run (Ctrl-C, SIGTERM): it says
 * where its progress is and how to resume, and removes the temporary output files, which only a
 * finished run puts in place. The cache needs nothing: it is safe at any point, as after a
 * SIGKILL. A SIGKILL runs nothing, so its temporary files stay until the next run replaces them.
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
   * @param out the output file (null when there is none): its temporary file and its rejected
   *     file's are removed
   */
  static Interruption watch(ProgressDisplay display, PrintWriter err, Path cache, Path out) {
    Thread hook = new Thread(() -> {
      display.finishBar();
      err.println("veil map: stopped; " + MapRun.progressKept(cache));
      if (out != null) {
        remove(err, MappingFile.temporaryFile(out));
        remove(err, MappingFile.temporaryFile(MappingFile.rejectedFile(out)));
      }
      err.flush();
    }, "veil-map-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    return new Interruption(hook);
  }

  private static void remove(PrintWriter err, Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      err.println("veil map: could not remove " + file + ": " + e.getMessage());
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

package dev.veil.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Random moments at which a crash test SIGKILLs the process it started, drawn from a seed the test
 * names in its failure messages.
 *
 * <p>A moment is drawn from the window between the JVM's start and nine tenths of what an
 * uninterrupted run took. A run that ends by itself before its moment (a warm server answers faster
 * than the reference run was answered, or a resumed run has little left to do) halves the window,
 * so that later moments land earlier and a test that needs a kill gets one.
 */
public final class KillMoments {
  private final long seed = new Random().nextLong();
  private final Random random = new Random(seed);
  private long windowMillis;

  /** Moments drawn within nine tenths of {@code runMillis}, an uninterrupted run's duration. */
  public KillMoments(long runMillis) {
    this.windowMillis = Math.max(2, runMillis * 9 / 10);
  }

  /** The seed of the moments, for a failure message. */
  public long seed() {
    return seed;
  }

  /**
   * Waits until a random moment, then SIGKILLs {@code process} if it still runs and waits for it to
   * be gone. Returns whether it was killed; {@code false} means it ended by itself.
   */
  public boolean killAtRandomMoment(Process process) throws InterruptedException {
    long delay = 1 + (long) (random.nextDouble() * windowMillis);
    if (process.waitFor(delay, TimeUnit.MILLISECONDS)) {
      windowMillis = Math.max(2, windowMillis / 2);
      return false;
    }
    process.destroyForcibly(); // SIGKILL on Linux
    process.waitFor();
    return true;
  }

  /**
   * Deletes the files of {@code dir} whose names start with {@code prefix}: the files of a run that
   * ended by itself, so that the next runs start afresh.
   */
  public static void deleteFilesStartingWith(Path dir, String prefix) throws IOException {
    List<Path> files;
    try (var listing = Files.list(dir)) {
      files = listing.filter(f -> f.getFileName().toString().startsWith(prefix)).toList();
    }
    for (Path f : files) {
      Files.delete(f);
    }
  }
}

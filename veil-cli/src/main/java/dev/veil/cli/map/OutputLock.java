package dev.veil.cli.map;

import dev.veil.sdk.internal.FileLocks;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Keeps a second {@code veil map} off an output that a run is writing, whatever state file each
 * uses: every run locks the output's default state file {@code <out>.veil-state}. A run without
 * {@code --cache} holds that lock through its {@link MapState} already; a run with {@code --cache}
 * takes it here as well (the file is created empty if need be, and removed again if it is still
 * empty; one holding the state of an earlier run without {@code --cache} is left as it is). Without
 * it, two runs on one output with different {@code --cache} files wrote {@code <out>.tmp} at once
 * and renamed a mixture of both into place, each saying it was done. Not thread-safe.
 */
final class OutputLock implements AutoCloseable {
  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;

  private OutputLock(Path file, FileChannel channel, FileLock lock) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
  }

  /** The file whose lock stands for the output {@code out}: its default state file. */
  static Path file(Path out) {
    return Path.of(out + ".veil-state");
  }

  /**
   * Locks the output {@code out} for a run whose state is in {@code statePath}; returns null when
   * that is the output's default state file, which {@link MapState} locks.
   *
   * @throws IOException if another run holds it (the message says so and names the output), or it
   *     cannot be opened
   */
  static OutputLock take(Path out, Path statePath) throws IOException {
    Path file = file(out);
    if (file.toAbsolutePath().normalize().equals(statePath.toAbsolutePath().normalize())) {
      return null;
    }
    FileChannel channel =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    return new OutputLock(
        file,
        channel,
        FileLocks.exclusive(
            channel,
            "--out "
                + out
                + " is being written by another veil map (it holds "
                + file
                + "); wait for it to end, or give another --out"));
  }

  /** Releases the lock; a lock file that holds no state is removed first, while still locked. */
  @Override
  public void close() throws IOException {
    try {
      if (channel.size() == 0) {
        Files.deleteIfExists(file);
      }
      lock.release();
    } finally {
      channel.close();
    }
  }
}

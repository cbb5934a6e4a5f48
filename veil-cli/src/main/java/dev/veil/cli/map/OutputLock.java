package dev.veil.cli.map;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Keeps a second {@code veil map} off an output that a run is writing, whatever cache each uses:
 * every run locks {@code <out>.lock} for as long as it runs (the operating system releases it when
 * the process dies). The mapping cache has a lock of its own, which keeps two runs off one cache;
 * this one keeps two runs with different {@code --cache} files from writing one output. The file
 * stays: removing a lock file that another process may be opening would let two runs hold "the"
 * lock at once. Not thread-safe.
 */
final class OutputLock implements AutoCloseable {
  private final FileChannel channel;
  private final FileLock lock;

  private OutputLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks the output of {@code files}.
   *
   * @throws IOException if another run holds it (the message says so and names the output), or it
   *     cannot be opened
   */
  static OutputLock take(MapFiles files) throws IOException {
    Path file = files.lock();
    FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException sameProcess) {
      lock = null;
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      channel.close();
      throw new IOException(
          "--out "
              + files.out()
              + " is being written by another veil map (it holds "
              + file
              + "); wait for it to end, or give another --out");
    }
    return new OutputLock(channel, lock);
  }

  @Override
  public void close() throws IOException {
    try (FileChannel c = channel) {
      lock.release();
    }
  }
}

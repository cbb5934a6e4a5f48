package dev.veil.sdk.internal.cache;

import dev.veil.sdk.internal.FileLocks;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on {@code <cache>.lock} for as long as a store has the cache open, so that no
 * second writer (another process, or another cache object in this one) appends to the same file. It
 * is a sibling file rather than the cache itself because compaction replaces the cache file. The
 * operating system releases it when the process dies.
 */
final class CacheLock implements AutoCloseable {
  private final FileChannel channel;
  private final FileLock lock;

  private CacheLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks {@code cache} (its real location, see {@link MappingStore#realLocation}), named {@code
   * given} in messages.
   */
  static CacheLock acquire(Path cache, Path given) throws IOException {
    Path path = cache.resolveSibling(cache.getFileName() + ".lock");
    LogFile.createPrivately(path);
    FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE);
    FileLock lock =
        FileLocks.exclusive(
            channel,
            "mapping cache "
                + given
                + " is open in another process (or another cache object here)");
    return new CacheLock(channel, lock);
  }

  @Override
  public void close() throws IOException {
    try (FileChannel c = channel) {
      lock.release();
    }
  }
}

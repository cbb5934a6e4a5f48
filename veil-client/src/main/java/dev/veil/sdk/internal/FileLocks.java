package dev.veil.sdk.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;

/**
 * Exclusive locks on files that one writer at a time may use; the operating system releases them
 * when the process dies.
 */
public final class FileLocks {
  private FileLocks() {}

  /**
   * Locks {@code channel}'s file without waiting. If another process, or another channel in this
   * one, holds it, closes {@code channel} and throws.
   *
   * @param inUse the message when it is held
   * @throws IOException if it is held or cannot be locked (the channel is then closed)
   */
  public static FileLock exclusive(FileChannel channel, String inUse) throws IOException {
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
      throw new IOException(inUse);
    }
    return lock;
  }
}

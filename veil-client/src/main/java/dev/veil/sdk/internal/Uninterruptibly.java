package dev.veil.sdk.internal;

import java.util.concurrent.BlockingQueue;

/**
 * Blocking steps that wait through interrupts and keep the interrupt for later: for the threads of
 * a mapping run, which must hand over every answer they hold before they stop.
 */
public final class Uninterruptibly {
  private Uninterruptibly() {}

  /** The queue's next element. */
  public static <T> T take(BlockingQueue<T> queue) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return queue.take();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Puts {@code item} on the queue, waiting for room. */
  public static <T> void put(BlockingQueue<T> queue, T item) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          queue.put(item);
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Waits for {@code thread} to end. */
  public static void join(Thread thread) {
    boolean interrupted = false;
    while (true) {
      try {
        thread.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}

package dev.veil.cli.map;

import dev.veil.sdk.CacheReport;
import dev.veil.sdk.MappingCache;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * A {@code veil map} import on three threads, so that the server, the input and the output all
 * make progress at once: one thread adds the input to the cache, the caller's maps what has been
 * added ({@link MappingCache#mapPendingWhile}), and one writes the output rows, in input order, as
 * entries get mapped ({@link MappingCache#writeCsvWhileMapping}). A failure stops the reading; the
 * output file is only put in place when all three finished without one.
 */
final class ImportRun {
  /** Adds the input to the cache; {@code stop} says to stop between chunks. */
  interface Input {
    void read(MappingCache cache, BooleanSupplier stop) throws IOException;
  }

  /** What the import did: the mapping run's report and the rows written (0 without an output file). */
  record Result(CacheReport report, long rows) {}

  private ImportRun() {}

  /**
   * @param out the output file, or null to write none
   * @throws IOException if reading, writing or the cache failed
   */
  static Result run(MappingCache cache, Input input, Path out) throws IOException {
    AtomicBoolean reading = new AtomicBoolean(true);
    AtomicBoolean mapping = new AtomicBoolean(true);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (MappingFile file = out == null ? null : MappingFile.open(out)) {
      Thread reader = start("veil-map-input", failure, () -> {
        try {
          input.read(cache, stop::get);
        } finally {
          reading.set(false);
          cache.wake(); // a run waiting for more entries ends now, not at its next look
        }
      });
      long[] rows = {0};
      Thread writer = file == null ? null : start("veil-map-output", failure,
          () -> rows[0] = cache.writeCsvWhileMapping(mapping::get, file.stream()));
      CacheReport report;
      try {
        report = cache.mapPendingWhile(() -> reading.get() && failure.get() == null);
      } finally {
        stop.set(true);
        mapping.set(false);
        cache.wake(); // the export waiting for the run's next write finishes now
        join(reader);
        join(writer);
      }
      rethrow(failure.get());
      if (file != null) {
        file.commit();
      }
      return new Result(report, rows[0]);
    }
  }

  private interface Work {
    void run() throws IOException;
  }

  private static Thread start(String name, AtomicReference<Exception> failure, Work work) {
    Thread t = new Thread(() -> {
      try {
        work.run();
      } catch (IOException | RuntimeException e) {
        failure.compareAndSet(null, e);
      }
    }, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static void join(Thread thread) {
    if (thread == null) {
      return;
    }
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void rethrow(Exception failure) throws IOException {
    if (failure instanceof UncheckedIOException unchecked) {
      throw unchecked.getCause();
    }
    if (failure instanceof IOException io) {
      throw io;
    }
    if (failure instanceof RuntimeException runtime) {
      throw runtime;
    }
  }
}

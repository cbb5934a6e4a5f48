package dev.veil.cli.map;

import dev.veil.sdk.AddResult;
import dev.veil.sdk.CacheReport;
import dev.veil.sdk.IdentifierBatch;
import dev.veil.sdk.MappingCache;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * A {@code veil map} import into a {@link MappingCache}: three things at once, each on its own
 * thread.
 *
 * <ol>
 *   <li>Reading: the input is read from the line after the cache's checkpoint for it and added in
 *       chunks ({@link MappingCache#addBuffered}), each with the line it reaches, so that a run
 *       killed at any point resumes from a line whose identifiers the cache holds (those read again
 *       are found held and not added twice).
 *   <li>Mapping, on the caller's thread: {@link MappingCache#mapPendingWhile} while reading goes
 *       on.
 *   <li>Writing: the output's rows ({@link MappingCache#writeCsvWhileMapping}), in the order
 *       identifiers were first read, to {@code <out>.tmp}, which the caller renames into place once
 *       every identifier is mapped.
 * </ol>
 *
 * <p>A failure of any of them stops the reading; what was mapped stays in the cache, and the
 * temporary output is not installed. Used once.
 */
final class CacheImport {
  /** What the import did. */
  record Result(
      long lines, long skippedLines, long read, AddResult added, CacheReport report, long rows) {
    /** Whether the input had been imported whole before: nothing read, nothing mapped. */
    boolean alreadyDone() {
      return skippedLines > 0 && lines <= skippedLines && report.sent() == 0;
    }
  }

  private final MappingCache cache;
  private final int firstChunk;
  private final int chunk;

  /** The reader's failure (a line that is not UTF-8, say), or one that stopped it. */
  private final AtomicReference<Throwable> readFailure = new AtomicReference<>();

  /** The writer's failure: a file this machine cannot write wins over any other. */
  private final AtomicReference<Throwable> writeFailure = new AtomicReference<>();

  private volatile boolean reading = true;
  private volatile boolean mapping = true;
  private long lines = -1;
  private long read;
  private AddResult added = new AddResult(0, 0, 0);
  private long rows;

  /**
   * @param firstChunk identifiers added first: they are mapped as soon as they are read
   * @param chunk identifiers added at once after that (the first grows to it, doubling)
   */
  CacheImport(MappingCache cache, int firstChunk, int chunk) {
    this.cache = cache;
    this.firstChunk = firstChunk;
    this.chunk = chunk;
  }

  /**
   * Imports {@code file}, named {@code source} in the cache's checkpoints, and writes the table to
   * {@code <out>.tmp}; the caller installs it.
   *
   * @throws IOException if the input cannot be read, or the output cannot be written
   * @throws dev.veil.sdk.VeilClientException if mapping fails
   */
  Result run(IdentifierFile file, String source, Path out) throws IOException {
    long skip = cache.checkpoint(source).orElse(0);
    Thread reader = new Thread(new Reader(file, source, skip), "veil-map-read");
    Thread writer = new Thread(new Writer(out), "veil-map-write");
    reader.setDaemon(true);
    writer.setDaemon(true);
    reader.start();
    writer.start();
    CacheReport report = null;
    RuntimeException mapFailure = null;
    try {
      report = cache.mapPendingWhile(new Reading());
    } catch (RuntimeException e) {
      mapFailure = e;
    } finally {
      reading = false; // a failed run stops the reader at its next chunk
      join(reader);
      mapping = false;
      cache.wake();
      join(writer);
    }
    rethrow(writeFailure.get());
    rethrow(mapFailure);
    rethrow(readFailure.get());
    return new Result(lines, skip, read, added, report, rows);
  }

  /** Whether the reader is still adding (a class: the cache polls it). */
  private final class Reading implements BooleanSupplier {
    @Override
    public boolean getAsBoolean() {
      return reading;
    }
  }

  /** Reads the input into the cache. */
  private final class Reader implements Runnable {
    private final IdentifierFile file;
    private final String source;
    private final long skip;

    Reader(IdentifierFile file, String source, long skip) {
      this.file = file;
      this.source = source;
      this.skip = skip;
    }

    @Override
    public void run() {
      try {
        lines = file.read(skip, firstChunk, chunk, this::add);
      } catch (Throwable t) {
        readFailure.set(t);
      } finally {
        reading = false;
        cache.wake();
      }
    }

    private void add(IdentifierBatch batch, long linesRead) throws IOException {
      if (!reading) {
        throw new IOException("stopped reading"); // the failure that stopped it is thrown instead
      }
      added = added.plus(cache.addBuffered(batch, source, linesRead));
      read += batch.size();
    }
  }

  /** Writes the output's rows as the run maps them. */
  private final class Writer implements Runnable {
    private final Path out;

    Writer(Path out) {
      this.out = out;
    }

    @Override
    public void run() {
      try {
        MapFiles.writeTemporary(out, o -> rows = cache.writeCsvWhileMapping(() -> mapping, o));
      } catch (Throwable t) {
        writeFailure.set(t);
        reading = false;
      }
    }
  }

  private static void join(Thread thread) {
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

  private static void rethrow(Throwable t) throws IOException {
    if (t == null) {
      return;
    }
    if (t instanceof IOException io) {
      throw io;
    }
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    throw new IllegalStateException(t);
  }
}

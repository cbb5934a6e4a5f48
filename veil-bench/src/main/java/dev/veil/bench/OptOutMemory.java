package dev.veil.bench;

import dev.veil.common.ChangeCursor;
import dev.veil.common.Versioned;
import dev.veil.optout.OptOut;
import dev.veil.optout.OptOutIndex;
import dev.veil.optout.OptOutService;
import dev.veil.optout.OptOutStore;
import dev.veil.salt.SaltSnapshot;
import dev.veil.salt.SaltSystem;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Memory of the opt-out index (docs/spec.md 4: at most 32 bytes per record at 10 million records).
 * Adds random 32-byte first-level hashes and prints, as {@code key=value} lines for {@code
 * bench/run.sh}: the record count, the table's bytes, bytes per record ({@code tableBytes / size}),
 * and, as a cross-check, the heap retained after a full GC divided by the record count. Then loads
 * the same records into an {@link OptOutService} and builds its advertising-id table for {@code
 * POST /v2/optout/status}, and prints that table's bytes per record and the two tables' sum.
 *
 * <p>Usage: {@code OptOutMemory [records]} (default 10,000,000).
 */
public final class OptOutMemory {
  private OptOutMemory() {}

  public static void main(String[] args) {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
    checkIndex(records);
    statusIndex(records);
  }

  /** The table every generate, refresh and map checks. */
  private static void checkIndex(int records) {
    long heapBefore = retainedHeap();
    OptOutIndex index = new OptOutIndex();
    SplittableRandom random = new SplittableRandom(7);
    byte[] hash = new byte[32];
    long start = System.nanoTime();
    for (int i = 0; i < records; i++) {
      random.nextBytes(hash);
      index.add(hash);
    }
    long addNanos = System.nanoTime() - start;
    long heapAfter = retainedHeap();
    int size = index.size(); // after the measurement, so the index is still reachable during it
    System.out.println("optout.records=" + size);
    System.out.println("optout.table_bytes=" + index.tableBytes());
    System.out.printf("optout.bytes_per_record=%.2f%n", (double) index.tableBytes() / size);
    System.out.printf(
        "optout.heap_bytes_per_record=%.2f%n", (double) (heapAfter - heapBefore) / size);
    System.out.printf("optout.add_ns=%.1f%n", (double) addNanos / records);
  }

  /** The check's table and the status table together, as a node that answers status holds them. */
  private static void statusIndex(int records) {
    SaltSnapshot salts =
        SaltSnapshot.initial(
            new SaltSystem(1 << 20, Instant.EPOCH, filled(1), filled(2), filled(3)));
    OptOutService service = new OptOutService(new RandomRecords(records), Clock.systemUTC());
    service.catchUp();
    long start = System.nanoTime();
    service.prepareStatus(salts);
    long buildNanos = System.nanoTime() - start;
    long check = service.index().tableBytes();
    long status = service.statusIndexBytes();
    System.out.printf("optout.status_bytes_per_record=%.2f%n", (double) status / records);
    System.out.printf(
        "optout.check_and_status_bytes_per_record=%.2f%n", (double) (check + status) / records);
    System.out.printf("optout.status_build_ns_per_record=%.1f%n", (double) buildNanos / records);
  }

  /** A store that streams {@code count} random records, the same ones on every read. */
  private static final class RandomRecords implements OptOutStore {
    private final int count;

    RandomRecords(int count) {
      this.count = count;
    }

    @Override
    public ChangeCursor forEachChange(ChangeCursor since, Consumer<Versioned<OptOut>> sink) {
      SplittableRandom random = new SplittableRandom(11);
      for (int i = 0; i < count; i++) {
        byte[] hash = new byte[32];
        random.nextBytes(hash);
        if (i >= since.position()) {
          sink.accept(new Versioned<>(i + 1, new OptOut(hash, Instant.EPOCH)));
        }
      }
      return new ChangeCursor(count);
    }

    @Override
    public Versioned<OptOut> record(byte[] firstLevelHash, Instant optedOutAt) {
      throw new UnsupportedOperationException("the benchmark's store is read-only");
    }

    @Override
    public Optional<OptOut> find(byte[] firstLevelHash) {
      return Optional.empty();
    }

    @Override
    public List<OptOut> findByPrefix(byte[] prefix) {
      return List.of();
    }
  }

  private static byte[] filled(int start) {
    byte[] b = new byte[32];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (start + i);
    }
    return b;
  }

  private static long retainedHeap() {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return rt.totalMemory() - rt.freeMemory();
  }
}

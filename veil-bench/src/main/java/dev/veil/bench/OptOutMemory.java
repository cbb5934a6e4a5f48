package dev.veil.bench;

import dev.veil.optout.OptOutIndex;
import java.util.SplittableRandom;

/**
 * Memory of the opt-out index (docs/spec.md 4: at most 32 bytes per record at 10 million records).
 * Adds random 32-byte first-level hashes and prints, as {@code key=value} lines for {@code
 * bench/run.sh}: the record count, the table's bytes, bytes per record ({@code tableBytes / size}),
 * and, as a cross-check, the heap retained after a full GC divided by the record count.
 *
 * <p>Usage: {@code OptOutMemory [records]} (default 10,000,000).
 */
public final class OptOutMemory {
  private OptOutMemory() {}

  public static void main(String[] args) {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
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

  private static long retainedHeap() {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return rt.totalMemory() - rt.freeMemory();
  }
}

package dev.veil.salt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DerivedTableTest {
  private static final int RECORD = 16;

  /** Record i is 16 bytes, each (i * 31 + position) mod 251 + 1: never all zeros. */
  private static void derive(int index, byte[] out, int off) {
    for (int k = 0; k < RECORD; k++) {
      out[off + k] = (byte) ((index * 31 + k) % 251 + 1);
    }
  }

  private static boolean holdsRecord(DerivedTable table, int index) {
    int off = table.offset(index);
    for (int k = 0; k < RECORD; k++) {
      if (table.records()[off + k] != (byte) ((index * 31 + k) % 251 + 1)) {
        return false;
      }
    }
    return true;
  }

  @Test
  void offset_computesEachRecordOnce_andKeepsIt() {
    AtomicInteger derivations = new AtomicInteger();
    DerivedTable table = new DerivedTable(100, RECORD, (i, out, off) -> {
      derivations.incrementAndGet();
      derive(i, out, off);
    });
    assertThat(holdsRecord(table, 7)).isTrue();
    assertThat(holdsRecord(table, 7)).isTrue();
    assertThat(holdsRecord(table, 99)).isTrue();
    assertThat(derivations).hasValue(2);
  }

  @Test
  void concurrentFirstReads_allSeeCompleteRecords() throws Exception {
    int count = 1 << 16;
    DerivedTable table = new DerivedTable(count, RECORD, DerivedTableTest::derive);
    int threads = 4;
    CountDownLatch start = new CountDownLatch(1);
    AtomicInteger bad = new AtomicInteger();
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int stride = t % 2 == 0 ? 1 : -1;
      Thread reader = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int n = 0; n < count; n++) {
          int i = stride > 0 ? n : count - 1 - n;
          if (!holdsRecord(table, i)) {
            bad.incrementAndGet();
          }
        }
      });
      reader.start();
      readers.add(reader);
    }
    start.countDown();
    for (Thread reader : readers) {
      reader.join();
    }
    assertThat(bad).hasValue(0);
  }

  @Test
  void copyOf_keepsComputedRecords_andRecomputesChangedOnes() {
    DerivedTable first = new DerivedTable(10, RECORD, DerivedTableTest::derive);
    first.offset(1);
    first.offset(2);
    AtomicInteger derivations = new AtomicInteger();
    boolean[] changed = new boolean[10];
    changed[2] = true;
    DerivedTable next = DerivedTable.copyOf(first, (i, out, off) -> {
      derivations.incrementAndGet();
      derive(i, out, off);
    }, changed);
    assertThat(holdsRecord(next, 1)).isTrue();
    assertThat(derivations).hasValue(0);
    assertThat(holdsRecord(next, 2)).isTrue();
    assertThat(holdsRecord(next, 3)).isTrue();
    assertThat(derivations).hasValue(2);
  }
}

package dev.veil.salt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BucketRecordsTest {
  /** Field bytes of bucket i: (i * 31 + position + seed) mod 251 + 1, never zero. */
  private static BucketRecords.Deriver filler(int length, int seed, AtomicInteger calls) {
    return (bucket, out, off) -> {
      calls.incrementAndGet();
      for (int k = 0; k < length; k++) {
        out[off + k] = expected(bucket, k, seed);
      }
    };
  }

  private static byte expected(int bucket, int k, int seed) {
    return (byte) ((bucket * 31 + k + seed) % 251 + 1);
  }

  private static boolean holds(BucketRecords records, int bucket, boolean salt, int seed) {
    int off = salt ? records.salt(bucket) : records.id(bucket);
    int length = salt ? BucketRecords.SALT_BYTES : BucketRecords.ID_BYTES;
    for (int k = 0; k < length; k++) {
      if (records.records()[off + k] != expected(bucket, k, seed)) {
        return false;
      }
    }
    return true;
  }

  @Test
  void eachFieldIsComputedOnce_independently_andKept() {
    AtomicInteger salts = new AtomicInteger();
    AtomicInteger ids = new AtomicInteger();
    BucketRecords records = new BucketRecords(100, filler(32, 0, salts), filler(12, 7, ids));
    assertThat(holds(records, 7, true, 0)).isTrue();
    assertThat(holds(records, 7, true, 0)).isTrue();
    assertThat(ids).hasValue(0);
    assertThat(holds(records, 7, false, 7)).isTrue();
    assertThat(holds(records, 7, true, 0)).isTrue();
    assertThat(holds(records, 99, false, 7)).isTrue();
    assertThat(salts).hasValue(1);
    assertThat(ids).hasValue(2);
  }

  @Test
  void concurrentFirstReads_allSeeCompleteFields() throws Exception {
    int count = 1 << 15;
    BucketRecords records =
        new BucketRecords(
            count, filler(32, 0, new AtomicInteger()), filler(12, 7, new AtomicInteger()));
    CountDownLatch start = new CountDownLatch(1);
    AtomicInteger bad = new AtomicInteger();
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      boolean forward = t % 2 == 0;
      Thread reader =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int n = 0; n < count; n++) {
                  int bucket = forward ? n : count - 1 - n;
                  if (!holds(records, bucket, true, 0) || !holds(records, bucket, false, 7)) {
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
  void copyOf_keepsComputedFields_andRecomputesTheChangedSalts() {
    AtomicInteger ids = new AtomicInteger();
    BucketRecords first =
        new BucketRecords(10, filler(32, 0, new AtomicInteger()), filler(12, 7, ids));
    first.salt(1);
    first.salt(2);
    first.id(2);
    boolean[] changed = new boolean[10];
    changed[2] = true;
    AtomicInteger salts = new AtomicInteger();
    BucketRecords next = BucketRecords.copyOf(first, filler(32, 5, salts), changed);
    assertThat(holds(next, 1, true, 0)).as("kept salt").isTrue();
    assertThat(salts).hasValue(0);
    assertThat(holds(next, 2, true, 5)).as("changed salt, computed again").isTrue();
    assertThat(holds(next, 3, true, 5)).as("salt never computed before").isTrue();
    assertThat(salts).hasValue(2);
    assertThat(holds(next, 2, false, 7)).as("kept id").isTrue();
    assertThat(ids).hasValue(1);
    assertThat(holds(first, 2, true, 0)).as("the old table is unchanged").isTrue();
  }
}

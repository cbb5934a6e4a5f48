package dev.veil.sdk.internal.cache;

import static dev.veil.sdk.internal.cache.StoreFixture.T0;
import static dev.veil.sdk.internal.cache.StoreFixture.advertisingId;
import static dev.veil.sdk.internal.cache.StoreFixture.answer;
import static dev.veil.sdk.internal.cache.StoreFixture.emails;
import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.sdk.Identifier;
import dev.veil.sdk.internal.MapAnswer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CSV export that follows a run writes the rows of answers handed over from their bytes: the file
 * must be the one written from the records afterwards, byte for byte, whatever the order answers
 * are stored in, and whether or not an answer was handed over.
 */
class AnswerHandoffTest {
  @TempDir Path dir;

  @Test
  void exportFollowingARun_flushesWhatItWrote_whenItWaitsForTheRun() throws Exception {
    try (MappingStore store = MappingStore.open(dir.resolve("cache"))) {
      store.add(emails(0, 2000), List.of(), T0, null, null);
      StoreFixture.mapAll(store, 500, 1, T0, Set.of());
      store.add(
          emails(2000, 2100),
          List.of(),
          T0,
          null,
          null); // waits to be mapped: the export stops before it
      List<Integer> writtenAtFlush = new ArrayList<>();
      ByteArrayOutputStream out =
          new ByteArrayOutputStream() {
            @Override
            public void flush() {
              synchronized (writtenAtFlush) {
                writtenAtFlush.add(size());
                writtenAtFlush.notifyAll();
              }
            }
          };
      try (FollowingExport export = new FollowingExport(store, out)) {
        synchronized (writtenAtFlush) {
          long deadline = System.nanoTime() + 30_000_000_000L;
          while (writtenAtFlush.isEmpty() && System.nanoTime() < deadline) {
            writtenAtFlush.wait(1000);
          }
        }
      }

      ByteArrayOutputStream firstTwoThousand = new ByteArrayOutputStream();
      store.writeCsv(() -> false, firstTwoThousand);
      assertThat(writtenAtFlush).as("flushed while waiting for the run").isNotEmpty();
      assertThat(writtenAtFlush.get(0))
          .as("every row it could write, written before the flush")
          .isEqualTo(firstTwoThousand.size());
    }
  }

  @Test
  void exportFollowingARun_writesFromAnswers_exactlyWhatTheRecordsGive() throws Exception {
    try (MappingStore store = MappingStore.open(dir.resolve("cache"))) {
      List<Identifier> ids = new ArrayList<>(emails(0, 3000));
      ids.add(1234, Identifier.email("a,b@example.com")); // a field that needs quotes
      store.add(ids, List.of(), T0, null, null);
      Set<String> optedOut = Set.of("user7@example.com", "user2500@example.com");
      StoreFixture.mapAll(
          store, 400, 1, T0, optedOut); // every entry mapped once before the export starts
      store.add(emails(3000, 6000), List.of(), T0, null, null);
      ByteArrayOutputStream followed = new ByteArrayOutputStream();
      try (FollowingExport export = new FollowingExport(store, followed)) {
        mapInPairs(store, optedOut);
        store.sync();
      }
      long followedFromAnswers = store.lastExportRowsFromAnswers;
      ByteArrayOutputStream fromRecords = new ByteArrayOutputStream();
      store.writeCsv(() -> false, fromRecords);

      assertThat(followed.toString(StandardCharsets.UTF_8))
          .isEqualTo(fromRecords.toString(StandardCharsets.UTF_8));
      assertThat(fromRecords.toString(StandardCharsets.UTF_8))
          .contains("\n\"a,b@example.com\",")
          .doesNotContain("user7@example.com");
      assertThat(fromRecords.toString(StandardCharsets.UTF_8).split("\n")).hasSize(1 + 6001 - 2);
      assertThat(followedFromAnswers).isPositive();
      assertThat(store.lastExportRowsFromAnswers).isZero(); // after the run: all from the records
    }
  }

  @Test
  void exportFollowingARunOnV3_writesFromAnswers_exactlyWhatTheRecordsGive() throws Exception {
    try (MappingStore store = MappingStore.open(dir.resolve("cache"))) {
      store.add(emails(0, 3000), List.of(), T0, null, null);
      ByteArrayOutputStream followed = new ByteArrayOutputStream();
      try (FollowingExport export = new FollowingExport(store, followed, true)) {
        for (PendingBatch part = store.pending(-1, 500);
            !part.isEmpty();
            part = store.pending(part.lastEntry(), 500)) {
          MapAnswer answer =
              MappingStoreV3Test.v3Answer(part.values(), 2, Set.of("user7@example.com"));
          store.append(part, answer, T0, T0);
        }
        store.sync();
      }
      long followedFromAnswers = store.lastExportRowsFromAnswers;
      ByteArrayOutputStream fromRecords = new ByteArrayOutputStream();
      store.writeCsv(() -> false, fromRecords, true);
      String csv = fromRecords.toString(StandardCharsets.UTF_8);

      assertThat(followed.toString(StandardCharsets.UTF_8)).isEqualTo(csv);
      assertThat(followedFromAnswers).isPositive();
      // The refresh time in whole seconds, from the answer's "r": entry n is due n days after T0.
      assertThat(csv)
          .contains(
              "\nuser10@example.com,"
                  + advertisingId("user10@example.com", 2)
                  + ","
                  + advertisingId("user10@example.com", 1)
                  + ","
                  + T0.plus(Duration.ofDays(10)).getEpochSecond()
                  + "\n")
          .contains(
              "\nuser2999@example.com,"
                  + advertisingId("user2999@example.com", 2)
                  + ",,"
                  + T0.plus(Duration.ofDays(2999)).getEpochSecond()
                  + "\n")
          .doesNotContain("user7@example.com");
    }
  }

  @Test
  void aSaverFindingTheHandoffFull_waitsUntilTheExportTakesAnAnswer() throws Exception {
    try (MappingStore store = MappingStore.open(dir.resolve("cache"))) {
      AnswerHandoff handoff = fullHandoff(store);
      Thread saver = awaitingRoom(handoff);

      assertThat(saver.isAlive()).as("still waiting while the handoff is full").isTrue();
      AnswerHandoff.Stored taken = handoff.next(0);
      saver.join(10_000);

      assertThat(taken).isNotNull();
      assertThat(saver.isAlive()).as("free once the export took an answer").isFalse();
    }
  }

  @Test
  void aSaverFindingTheHandoffFull_goesOn_whenTheExportWaitsForTheRunOrCloses() throws Exception {
    try (MappingStore store = MappingStore.open(dir.resolve("cache"))) {
      AnswerHandoff handoff = fullHandoff(store);
      Thread saver = awaitingRoom(handoff);
      handoff.exportWaits(true); // only a new answer can move the export on now
      saver.join(10_000);
      assertThat(saver.isAlive()).isFalse();

      handoff.exportWaits(false);
      Thread another = awaitingRoom(handoff);
      handoff.close();
      another.join(10_000);
      assertThat(another.isAlive()).isFalse();

      long start = System.nanoTime();
      handoff.awaitRoom(LONG_WAIT); // closed: no export follows
      assertThat(System.nanoTime() - start).isLessThan(LONG_WAIT);
    }
  }

  @Test
  void aSaverWaitsForRoom_atMostItsLongestWait() throws Exception {
    try (MappingStore store = MappingStore.open(dir.resolve("cache"))) {
      AnswerHandoff handoff = fullHandoff(store);
      long start = System.nanoTime();

      handoff.awaitRoom(); // nobody takes an answer: the run goes on after the longest wait

      assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(AnswerHandoff.ROOM_WAIT_NANOS);
    }
  }

  /** An open handoff holding {@link AnswerHandoff#MAX_ANSWERS} answers of the store's entries. */
  private static AnswerHandoff fullHandoff(MappingStore store) {
    store.add(emails(0, 100 * AnswerHandoff.MAX_ANSWERS), List.of(), T0, null, null);
    AnswerHandoff handoff = new AnswerHandoff();
    handoff.open();
    int after = -1;
    for (int i = 0; i < AnswerHandoff.MAX_ANSWERS; i++) {
      PendingBatch part = store.pending(after, 100);
      handoff.offer(part, StoreFixture.answer(part.values(), 1, Set.of()), new long[part.size()]);
      after = part.lastEntry();
    }
    return handoff;
  }

  /** A wait for room that no test outlasts unless the wait is not ended as it should be. */
  private static final long LONG_WAIT = 60_000_000_000L;

  /**
   * A thread in {@link AnswerHandoff#awaitRoom(long)} for {@link #LONG_WAIT}, returned once it
   * waits there.
   */
  private static Thread awaitingRoom(AnswerHandoff handoff) {
    Thread saver = new Thread(() -> handoff.awaitRoom(LONG_WAIT));
    saver.start();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (saver.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
      Thread.onSpinWait(); // the saver reaches its wait within microseconds
    }
    assertThat(saver.getState()).as("waiting for room").isEqualTo(Thread.State.TIMED_WAITING);
    return saver;
  }

  /**
   * Maps every pending entry in batches of 700, two at a time, the second of each pair stored
   * first.
   */
  private static void mapInPairs(MappingStore store, Set<String> optedOut) {
    int after = -1;
    while (true) {
      PendingBatch first = store.pending(after, 700);
      if (first.isEmpty()) {
        break;
      }
      PendingBatch second = store.pending(first.lastEntry(), 700);
      MapAnswer firstAnswer = answer(first.values(), 1, optedOut);
      if (!second.isEmpty()) {
        store.append(second, answer(second.values(), 1, optedOut), T0, T0);
      }
      store.append(first, firstAnswer, T0, T0);
      after = second.isEmpty() ? first.lastEntry() : second.lastEntry();
    }
  }

  @Test
  void exportFollowingARun_takesTheRowsOfHandedOverAnswers() throws Exception {
    try (MappingStore store = MappingStore.open(dir.resolve("cache"))) {
      store.add(emails(0, 4000), List.of(), T0, null, null);
      ByteArrayOutputStream followed = new ByteArrayOutputStream();
      FollowingExport export = new FollowingExport(store, followed);
      try (export) {
        StoreFixture.mapAll(store, 500, 1, T0, Set.of());
      }

      assertThat(export.rows).isEqualTo(4000);
      // The export waits at the first unmapped entry and each answer is handed over before its
      // entries are seen as mapped: every row but those of answers it could not hold comes from
      // one.
      assertThat(store.lastExportRowsFromAnswers).isPositive();
      ByteArrayOutputStream fromRecords = new ByteArrayOutputStream();
      store.writeCsv(() -> false, fromRecords);
      assertThat(followed.toByteArray()).isEqualTo(fromRecords.toByteArray());
    }
  }

  @Test
  void reader_usesAnAnswerOnlyForEntriesWhoseRecordItStored() {
    AnswerHandoff handoff = new AnswerHandoff();
    handoff.open();
    PendingBatch low = batch(10, 11, 12);
    PendingBatch high = batch(20, 22);
    handoff.offer(high, MapAnswer.allUnmapped(2, "optout"), new long[] {200, 220});
    handoff.offer(low, MapAnswer.allUnmapped(3, "optout"), new long[] {100, -1, 120});
    AnswerHandoff.Reader reader = new AnswerHandoff.Reader(handoff);

    assertThat(reader.find(10, 100)).isTrue();
    assertThat(reader.stored().part).isSameAs(low);
    assertThat(reader.find(11, 110)).isFalse(); // not mapped by that answer
    assertThat(reader.find(12, 999)).isFalse(); // mapped again since
    assertThat(reader.find(15, 150)).isFalse(); // in no answer
    assertThat(reader.find(22, 220)).isTrue();
    assertThat(reader.index()).isEqualTo(1);
    assertThat(reader.find(30, 300)).isFalse();
  }

  @Test
  void handoff_holdsABoundedNumberOfAnswers_andNoneOnceClosed() {
    AnswerHandoff handoff = new AnswerHandoff();
    handoff.offer(batch(1), MapAnswer.allUnmapped(1, "optout"), new long[] {1});
    assertThat(handoff.next(0)).isNull(); // not open: nothing kept
    handoff.open();
    for (int i = 0; i < AnswerHandoff.MAX_ANSWERS + 5; i++) {
      handoff.offer(batch(i), MapAnswer.allUnmapped(1, "optout"), new long[] {i});
    }
    int held = 0;
    for (int entry = 0; handoff.next(entry) != null; entry++) {
      held++;
    }
    assertThat(held).isEqualTo(AnswerHandoff.MAX_ANSWERS);
    handoff.offer(batch(100), MapAnswer.allUnmapped(1, "optout"), new long[] {100});
    handoff.close();
    assertThat(handoff.next(0)).isNull();
  }

  private static PendingBatch batch(int... entries) {
    PendingBatch b = new PendingBatch(entries.length);
    for (int e : entries) {
      byte[] v = ("user" + e + "@example.com").getBytes(StandardCharsets.US_ASCII);
      b.add(e, KindCode.of(dev.veil.core.identity.IdentityInput.EMAIL), false, v, 0, v.length);
    }
    return b;
  }

  /**
   * A CSV export following a run on a thread of its own. Closing it ends the run for the export
   * (whatever failed meanwhile: else closing the store would wait for it), waits for it and fails
   * if it failed.
   */
  private static final class FollowingExport implements AutoCloseable {
    private final MappingStore store;
    private final AtomicBoolean mapping = new AtomicBoolean(true);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Thread writer;
    private volatile long rows;

    FollowingExport(MappingStore store, OutputStream out) {
      this(store, out, false);
    }

    FollowingExport(MappingStore store, OutputStream out, boolean v3) {
      this.store = store;
      writer =
          new Thread(
              () -> {
                try {
                  rows = store.writeCsv(mapping::get, out, v3);
                } catch (IOException | RuntimeException e) {
                  failure.set(e);
                }
              });
      writer.start();
      // The run must not start before the export follows it: a run that ends first hands no answer
      // over, and the export reads every row from the records (seen on a loaded CI machine).
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (!store.handoff().isOpen() && writer.isAlive() && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(store.handoff().isOpen()).as("the export follows before the run starts").isTrue();
    }

    @Override
    public void close() throws InterruptedException {
      mapping.set(false);
      store.wakeWalks();
      writer.join();
      assertThat(failure.get()).as("the export's failure").isNull();
    }
  }
}

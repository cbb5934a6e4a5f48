package dev.veil.sdk.internal.cache;

import static dev.veil.sdk.internal.cache.StoreFixture.T0;
import static dev.veil.sdk.internal.cache.StoreFixture.emails;
import static dev.veil.sdk.internal.cache.StoreFixture.mapAll;
import static dev.veil.sdk.internal.cache.StoreFixture.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.veil.sdk.AddResult;
import dev.veil.sdk.Identifier;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a crash can leave of a cache file, and what opening it makes of that: the file after a
 * process dies is always a prefix of what it was writing (plus, after a power loss, perhaps zeros
 * or garbage where the last write was going), so these tests cut and damage copies of real files.
 */
class MappingStoreRecoveryTest {
  private static final String[] META = {"cp"};

  @TempDir Path dir;

  private Path file(String name) {
    return dir.resolve(name);
  }

  /** A cache with 300 entries, 200 of them mapped, 1 opted out, and a checkpoint. */
  private Path populated(String name) {
    Path file = file(name);
    try (MappingStore store = MappingStore.open(file)) {
      store.add(emails(0, 300), List.of(Identifier.email("not an email")), T0, "cp", "300");
      mapAll(store, 100, 1, T0, Set.of("user7@example.com"));
      store.add(emails(300, 400), List.of(), T0, "cp", "400");
    }
    return file;
  }

  private static StoreFixture.State stateOf(Path file) {
    try (MappingStore store = MappingStore.open(file)) {
      return state(store, META);
    }
  }

  private Path copyPrefix(Path file, long length, String name) throws IOException {
    Path copy = file(name);
    byte[] all = Files.readAllBytes(file);
    Files.write(copy, Arrays.copyOf(all, (int) length));
    return copy;
  }

  @Test
  void aLastFrameCutAnywhere_isDropped_andTheCacheIsAsBeforeIt() throws IOException {
    Path file = populated("cut.cache");
    StoreFixture.State before = stateOf(file);
    long sizeBefore = Files.size(file);
    try (MappingStore store = MappingStore.open(file)) {
      store.add(
          emails(400, 450), List.of(Identifier.email("bad")), T0, "cp", "450"); // one more frame
    }
    long sizeAfter = Files.size(file);
    assertThat(sizeAfter).isGreaterThan(sizeBefore + 100);

    for (long cut = sizeBefore + 1; cut < sizeAfter; cut += 7) {
      Path copy = copyPrefix(file, cut, "cut-" + cut + ".cache");
      try (MappingStore store = MappingStore.open(copy)) {
        assertThat(state(store, META)).as("cut at %d", cut).isEqualTo(before);
        assertThat(store.recoveredTailBytes()).isEqualTo(cut - sizeBefore);
      }
      assertThat(Files.size(copy)).isEqualTo(sizeBefore);
    }
  }

  @Test
  void afterACut_newWritesGoWhereTheTornFrameWas_andSurviveReopening() throws IOException {
    Path file = populated("resume.cache");
    long sizeBefore = Files.size(file);
    try (MappingStore store = MappingStore.open(file)) {
      store.add(emails(400, 450), List.of(), T0, "cp", "450");
    }
    Path copy = copyPrefix(file, sizeBefore + 40, "torn.cache");

    try (MappingStore store = MappingStore.open(copy)) {
      assertThat(store.add(emails(400, 460), List.of(), T0, "cp", "460"))
          .isEqualTo(new AddResult(60, 0, 0));
    }

    try (MappingStore store = MappingStore.open(copy)) {
      assertThat(store.recoveredTailBytes()).isZero();
      assertThat(store.size()).isEqualTo(460 - 1); // user7 opted out
      assertThat(store.meta("cp")).contains("460");
    }
  }

  @Test
  void zerosOrGarbageAfterTheLastFrame_areCutOff() throws IOException {
    Path file = populated("tail.cache");
    StoreFixture.State before = stateOf(file);
    long size = Files.size(file);
    byte[] frameHeadOfAHugeFrame = {0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 1, 2, 3, 4, 5, 6};
    for (byte[] tail : List.of(new byte[4096], new byte[3], frameHeadOfAHugeFrame)) {
      Path copy = copyPrefix(file, size, "tail-" + tail.length + ".cache");
      try (RandomAccessFile raf = new RandomAccessFile(copy.toFile(), "rw")) {
        raf.seek(size);
        raf.write(tail);
      }

      try (MappingStore store = MappingStore.open(copy)) {
        assertThat(state(store, META)).isEqualTo(before);
        assertThat(store.recoveredTailBytes()).isEqualTo(tail.length);
      }
    }
  }

  @Test
  void aFlippedByteInTheLastFrame_failsItsChecksum_andOnlyThatFrameIsLost() throws IOException {
    Path file = populated("flip.cache");
    StoreFixture.State before = stateOf(file);
    long sizeBefore = Files.size(file);
    try (MappingStore store = MappingStore.open(file)) {
      store.add(emails(400, 450), List.of(), T0, "cp", "450");
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(sizeBefore + 20);
      int b = raf.read();
      raf.seek(sizeBefore + 20);
      raf.write(b ^ 0x10);
    }

    assertThat(stateOf(file)).isEqualTo(before);
  }

  @Test
  void damageBeforeThePartACrashCanLeaveIncomplete_isReported_notCutOff() throws IOException {
    Path file = file("damaged.cache");
    List<Long> frames = new ArrayList<>();
    try (LogFile log = LogFile.open(file, (position, payload, off, len) -> {})) {
      for (int i = 0; i < 3; i++) {
        Frame f = new Frame(64);
        f.meta("k" + i, "v" + i);
        frames.add(log.append(f.seal()));
      }
      log.syncTo(log.end());
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(frames.get(0) + 2);
      raf.write('X');
    }
    long tail = Files.size(file) - (frames.get(0) - Frame.HEAD);

    assertThatThrownBy(() -> LogFile.open(file, (position, payload, off, len) -> {}, tail - 1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("is damaged at byte");
    List<Long> seen = new ArrayList<>();
    try (LogFile log =
        LogFile.open(file, (position, payload, off, len) -> seen.add(position), tail)) {
      assertThat(seen).isEmpty(); // within the limit, the same bytes count as a torn tail
      assertThat(log.truncatedBytes()).isEqualTo(tail);
    }
  }

  @Test
  void aCrashAfterTheAddsAndBeforeTheirMappings_leavesThemWaiting_andReAddingAddsNothing()
      throws IOException {
    Path file = file("added.cache");
    try (MappingStore store = MappingStore.open(file)) {
      store.add(emails(0, 500), List.of(), T0, "cp", "500");
      Files.copy(file, file("crashed.cache")); // the file as a process killed now leaves it
      mapAll(store, 100, 1, T0, Set.of());
    }

    try (MappingStore crashed = MappingStore.open(file("crashed.cache"))) {
      assertThat(crashed.size()).isEqualTo(500);
      assertThat(crashed.todoCount()).isEqualTo(500);
      assertThat(crashed.meta("cp")).contains("500");
      assertThat(crashed.add(emails(0, 500), List.of(), T0, "cp", "500"))
          .isEqualTo(new AddResult(0, 500, 0));
      assertThat(mapAll(crashed, 100, 1, T0, Set.of())).isEqualTo(500);
      assertThat(state(crashed, META)).isEqualTo(stateOf(file));
    }
  }

  @Test
  void duplicates_withinAnAdd_acrossAdds_andAcrossReopening_areHeldOnce() {
    Path file = file("dups.cache");
    List<Identifier> withDuplicates = new ArrayList<>(emails(0, 100));
    withDuplicates.addAll(emails(50, 150));
    withDuplicates.addAll(emails(0, 10));
    try (MappingStore store = MappingStore.open(file)) {
      assertThat(store.add(withDuplicates, List.of(), T0, null, null))
          .isEqualTo(new AddResult(150, 60, 0));
      assertThat(store.add(emails(140, 160), List.of(), T0, null, null))
          .isEqualTo(new AddResult(10, 10, 0));
      mapAll(store, 64, 1, T0, Set.of());
    }
    try (MappingStore store = MappingStore.open(file)) {
      assertThat(store.add(emails(0, 170), List.of(), T0, null, null))
          .isEqualTo(new AddResult(10, 160, 0));
      List<String> values = new ArrayList<>();
      store.forEach(m -> values.add(m.identifier().value()));
      assertThat(values).hasSize(160).doesNotHaveDuplicates();
      assertThat(store.size()).isEqualTo(170);
    }
  }

  @Test
  void whenEveryFingerprintCollides_theStoredValuesStillDecide() {
    Path file = file("collide.cache");
    try (MappingStore store = MappingStore.open(file, Fingerprint.constant())) {
      List<Identifier> ids = new ArrayList<>(emails(0, 300));
      ids.add(Identifier.emailHash("tMmiiTI7IaAcPpQPFQ65uMVCWH8av9jw4cwf/F5HVRQ="));
      ids.addAll(emails(0, 300));
      assertThat(store.add(ids, List.of(), T0, null, null)).isEqualTo(new AddResult(301, 300, 0));
      mapAll(store, 50, 1, T0, Set.of("user3@example.com"));
      assertThat(store.get(Identifier.email("user299@example.com"))).isPresent();
      assertThat(store.get(Identifier.email("user3@example.com"))).isEmpty();
      assertThat(store.get(Identifier.email("user300@example.com"))).isEmpty();
      assertThat(store.add(emails(0, 301), List.of(), T0, null, null))
          .isEqualTo(new AddResult(2, 299, 0));
    }
  }

  @Test
  void aCompactionCutShortBeforeItsRename_leavesTheOldFile_andItsLeftoverIsRemoved()
      throws IOException {
    Path file = populated("compact.cache");
    StoreFixture.State before = stateOf(file);
    Path leftover = Compaction.temporaryFile(file);
    Files.write(leftover, Arrays.copyOf(Files.readAllBytes(file), 100)); // half-written new file

    assertThat(stateOf(file)).isEqualTo(before);
    assertThat(leftover).doesNotExist();
  }

  @Test
  void compaction_keepsTheCurrentState_inAFileOfTheCurrentRecordsOnly() throws IOException {
    Path file = file("grown.cache");
    String[] meta = {"cp", "poll"};
    StoreFixture.State before = grow(file, meta);
    long grown = Files.size(file);

    try (MappingStore store =
        MappingStore.open(file)) { // opening compacts: most records were replaced
      assertThat(state(store, meta)).isEqualTo(before);
    }
    assertThat(Files.size(file)).isLessThan(grown / 2);
    try (MappingStore store = MappingStore.open(file)) {
      assertThat(state(store, meta)).isEqualTo(before);
      assertThat(before.rejections()).hasSize(2); // "bad" once, user5 once
    }
  }

  @Test
  void aCacheNamedByASymbolicLink_isTheLinksTarget_forTheLock_aNewFile_andACompaction()
      throws IOException {
    Path target = file("real.cache");
    Path link =
        Files.createSymbolicLink(
            file("link.cache"), target.getFileName()); // relative, not there yet
    String[] meta = {"cp", "poll"};

    StoreFixture.State before = grow(link, meta); // creates the target through the link
    assertThat(link).isSymbolicLink();
    assertThat(Files.getPosixFilePermissions(target))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    long grown = Files.size(target);

    try (MappingStore store = MappingStore.open(link)) { // compacts into the target's directory
      assertThat(state(store, meta)).isEqualTo(before);
      assertThatThrownBy(() -> MappingStore.open(target))
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageContaining("mapping cache " + target + " is open in another process");
    }
    assertThat(link).isSymbolicLink();
    assertThat(Files.size(target)).isLessThan(grown / 2);
    assertThat(Files.getPosixFilePermissions(target))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    try (MappingStore store = MappingStore.open(target)) {
      assertThat(state(store, meta)).isEqualTo(before);
      assertThatThrownBy(() -> MappingStore.open(link))
          .hasMessageContaining("mapping cache " + link + " is open");
    }
  }

  /**
   * Fills {@code file} with 12,000 entries mapped three times over (two rotations re-map every one)
   * and a rejection, so that most records are replaced and the next open compacts.
   */
  private StoreFixture.State grow(Path file, String[] meta) {
    try (MappingStore store = MappingStore.open(file)) {
      store.add(
          emails(0, 12_000),
          List.of(Identifier.email("bad"), Identifier.email("bad")),
          T0,
          "cp",
          "1");
      mapAll(store, 1000, 1, T0, Set.of("user5@example.com"));
      for (int generation = 2; generation <= 3; generation++) { // two rotations re-map everything
        RotationLoad load = store.rotationLoad();
        for (int b = 0; b < 8; b++) {
          load.add(new dev.veil.sdk.RotatedBucket("b" + b, T0.plusSeconds(generation)));
        }
        assertThat(load.commit("poll", "p" + generation)).isEqualTo(12_000 - 1);
        mapAll(store, 1000, generation, T0.plusSeconds(generation), Set.of());
      }
      RotationLoad last = store.rotationLoad();
      last.add(new dev.veil.sdk.RotatedBucket("b3", T0.plusSeconds(10)));
      assertThat(last.commit("poll", "p4")).isPositive(); // leaves stale marks to keep
      return state(store, meta);
    }
  }

  @Test
  void aSecondOpenOfTheSameFile_failsWhileTheFirstIsOpen() {
    Path file = file("locked.cache");
    try (MappingStore first = MappingStore.open(file)) {
      assertThatThrownBy(() -> MappingStore.open(file))
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageContaining("is open in another process");
    }
    MappingStore.open(file).close();
  }

  @Test
  void filesThatAreNotMappingCaches_areRefused_withTheReason() throws IOException {
    Path sqlite = file("old.db");
    Files.write(
        sqlite,
        "SQLite format 3\0 and then pages".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    Path other = file("notes.txt");
    Files.writeString(other, "shopping list\n");

    assertThatThrownBy(() -> MappingStore.open(sqlite))
        .hasMessageContaining("earlier version of the client (SQLite)");
    assertThatThrownBy(() -> MappingStore.open(other))
        .hasMessageContaining("is not a Veil mapping cache");
  }

  @Test
  void aFileWhoseCreationWasCutShort_opensAsANewCache() throws IOException {
    Path file = file("new.cache");
    Files.write(file, Arrays.copyOf(LogFile.MAGIC, 3));

    try (MappingStore store = MappingStore.open(file)) {
      assertThat(store.size()).isZero();
      store.add(emails(0, 3), List.of(), T0, null, null);
    }
    assertThat(stateOf(file).size()).isEqualTo(3);
  }

  @Test
  void anInterruptedReader_doesNotBreakTheCacheForOtherThreads() throws Exception {
    Path file = populated("interrupt.cache");
    try (MappingStore store = MappingStore.open(file)) {
      Thread.currentThread().interrupt();
      Throwable interrupted =
          catchThrowable(() -> store.get(Identifier.email("user1@example.com")));
      Thread.interrupted();
      if (interrupted
          != null) { // the interrupted thread's own read may fail, and only as an interruption
        assertThat(interrupted)
            .hasRootCauseInstanceOf(java.nio.channels.ClosedByInterruptException.class);
      }
      store.add(emails(1000, 1010), List.of(), T0, null, null);
      assertThat(store.get(Identifier.email("user1@example.com"))).isPresent();
      Thread other =
          new Thread(
              () -> assertThat(store.get(Identifier.email("user2@example.com"))).isPresent());
      other.start();
      other.join();
    }
    Files.copy(file, file("after.cache"), StandardCopyOption.REPLACE_EXISTING);
    assertThat(stateOf(file("after.cache")).size()).isEqualTo(400 - 1 + 10);
  }
}

package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MapStateTest {
  @TempDir Path dir;

  private static MapState.Checkpoint at(long lines, long rows, long millis) {
    return new MapState.Checkpoint(lines, 100 + rows * 10, rows, 18, 0, millis);
  }

  @Test
  void records_areReadBack_andRowsTakeTheTimeOfTheSegmentThatWroteThem() throws IOException {
    Path file = dir.resolve("out.csv.veil-state");
    try (MapState state = MapState.open(file)) {
      assertThat(state.input()).isNull();
      state.begin("input=a.txt");
      state.checkpoint(at(0, 0, Long.MAX_VALUE));
      state.checkpoint(at(1000, 1000, 5_000));
      state.checkpoint(at(1000, 1000, Long.MAX_VALUE)); // nothing written since: an empty segment
      state.checkpoint(at(3000, 3000, 7_000));
    }
    try (MapState state = MapState.open(file)) {
      assertThat(state.input()).isEqualTo("input=a.txt");
      assertThat(state.done()).isFalse();
      assertThat(state.last()).isEqualTo(at(3000, 3000, 7_000));
      assertThat(state.mappedAtMillis(0)).isEqualTo(5_000);
      assertThat(state.mappedAtMillis(999)).isEqualTo(5_000);
      assertThat(state.mappedAtMillis(1000)).isEqualTo(7_000);
      assertThat(state.mappedAtMillis(2999)).isEqualTo(7_000);
      assertThatThrownBy(() -> state.mappedAtMillis(3000))
          .isInstanceOf(IllegalStateException.class);
      assertThat(state.oldestMappedAtMillis()).isEqualTo(5_000);
      assertThat(state.refreshedMillis()).isEmpty();

      state.markDone();
      state.refreshed(9_000, 2990, 10);
    }
    try (MapState state = MapState.open(file)) {
      assertThat(state.done()).isTrue();
      assertThat(state.refreshedMillis()).hasValue(9_000);
      assertThat(state.mappedAtMillis(0)).isEqualTo(9_000);
      assertThat(state.last().rows()).isEqualTo(2990);
      assertThat(state.last().rejectedRows()).isEqualTo(10);

      state.begin("input=b.txt"); // another input starts the record anew
    }
    try (MapState state = MapState.open(file)) {
      assertThat(state.input()).isEqualTo("input=b.txt");
      assertThat(state.done()).isFalse();
      assertThat(state.refreshedMillis()).isEmpty();
      assertThat(state.last()).isEqualTo(MapState.Checkpoint.NONE);
    }
  }

  @Test
  void renamesArePending_afterDoneOrRefreshed_untilInstalled_acrossReopening() throws IOException {
    Path file = dir.resolve("out.csv.veil-state");
    try (MapState state = MapState.open(file)) {
      state.begin("input=a.txt");
      state.checkpoint(at(10, 10, 5_000));
      assertThat(state.renamesPending()).isFalse();
      state.markDone();
      assertThat(state.renamesPending()).isTrue();
    }
    try (MapState state = MapState.open(file)) {
      assertThat(state.renamesPending()).isTrue();
      state.markInstalled();
    }
    try (MapState state = MapState.open(file)) {
      assertThat(state.renamesPending()).isFalse();
      state.refreshed(9_000, 9, 1);
      assertThat(state.renamesPending()).isTrue();
    }
    try (MapState state = MapState.open(file)) {
      assertThat(state.renamesPending()).isTrue();
      assertThat(state.last().rows()).isEqualTo(9);
      state.markInstalled();
    }
    try (MapState state = MapState.open(file)) {
      assertThat(state.renamesPending()).isFalse();
      assertThat(state.refreshedMillis()).hasValue(9_000);
    }
  }

  @Test
  void aTornLastRecord_isCutOff_andTheRecordsBeforeItStand() throws IOException {
    Path file = dir.resolve("s");
    try (MapState state = MapState.open(file)) {
      state.begin("input=a.txt");
      state.checkpoint(at(10, 10, 1_000));
      state.checkpoint(at(20, 20, 2_000));
    }
    long whole = Files.size(file);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(whole - 5); // the last checkpoint half written
    }
    try (MapState state = MapState.open(file)) {
      assertThat(state.last()).isEqualTo(at(10, 10, 1_000));
      state.checkpoint(at(30, 30, 3_000)); // appended after the last whole record
    }
    try (MapState state = MapState.open(file)) {
      assertThat(state.last()).isEqualTo(at(30, 30, 3_000));
      assertThat(state.mappedAtMillis(15)).isEqualTo(3_000);
    }

    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length - 1] ^= 1; // a flipped bit in the last record: its CRC fails
    Files.write(file, bytes);
    try (MapState state = MapState.open(file)) {
      assertThat(state.last()).isEqualTo(at(10, 10, 1_000));
    }
  }

  @Test
  void anotherFile_isRefused_andLeftAsItWas() throws IOException {
    Path file = dir.resolve("mapped.csv");
    Files.writeString(file, "identifier,advertising_id,bucket_id\na@example.com,x,y\n");
    byte[] before = Files.readAllBytes(file);

    assertThatThrownBy(() -> MapState.open(file))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("is not a veil map state file");
    assertThat(Files.readAllBytes(file)).isEqualTo(before);
    MapState.open(file.resolveSibling("fresh")).close(); // an empty or missing file is a new state
  }

  @Test
  void aSecondRunOnTheSameState_isRefused() throws IOException {
    Path file = dir.resolve("s");
    try (MapState state = MapState.open(file)) {
      assertThatThrownBy(() -> MapState.open(file))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("in use");
    }
    MapState.open(file).close(); // released
  }
}

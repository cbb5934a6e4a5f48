package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArchiveMarkTest {
  @TempDir Path dir;

  @AfterEach
  void clear() {
    System.clearProperty(ArchiveMark.PROPERTY);
  }

  @Test
  void aRunThatSentIdentifiers_marksTheArchiveNamedByTheLauncher() {
    Path archive = dir.resolve("veil-map-x.jsa.123.dump");
    System.setProperty(ArchiveMark.PROPERTY, archive.toString());

    ArchiveMark.afterImport(5);
    ArchiveMark.afterImport(7); // marked already: no error

    assertThat(Path.of(archive + ".ok")).exists();
  }

  @Test
  void aRunThatSentNothing_leavesNoMark() throws Exception {
    Path archive = dir.resolve("veil-map-x.jsa.123.dump");
    System.setProperty(ArchiveMark.PROPERTY, archive.toString());

    ArchiveMark.afterImport(0);

    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void withoutAnArchiveBeingWritten_orWhereNoMarkCanBeMade_nothingHappens() {
    ArchiveMark.afterImport(5); // no property: the launcher writes no archive

    System.setProperty(ArchiveMark.PROPERTY, dir.resolve("no/such/dir/a.dump").toString());
    ArchiveMark.afterImport(
        5); // cannot be made: the run's result stands, the archive is dropped later

    assertThat(dir.resolve("no")).doesNotExist();
  }
}

package dev.veil.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import org.junit.jupiter.api.Test;

/** Words for file failures whose JDK message is the file's name alone. */
class FileProblemsTest {
  @Test
  void fileSystemFailures_sayWhatWentWrong_withTheFile() {
    assertThat(FileProblems.describe(new AccessDeniedException("/data/out.csv.tmp")))
        .isEqualTo("permission denied: /data/out.csv.tmp");
    assertThat(FileProblems.describe(new NoSuchFileException("in.csv")))
        .isEqualTo("no such file: in.csv");
    assertThat(FileProblems.describe(new NotDirectoryException("a/b")))
        .isEqualTo("not a directory: a/b");
    assertThat(
            FileProblems.describe(
                new FileSystemException("out.csv", null, "No space left on device")))
        .isEqualTo("No space left on device: out.csv");
    assertThat(FileProblems.describe(new FileSystemException("out.csv.tmp", "out.csv", null)))
        .isEqualTo("cannot use the file: out.csv.tmp (and out.csv)");
  }
}

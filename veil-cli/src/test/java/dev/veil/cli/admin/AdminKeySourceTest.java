package dev.veil.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdminKeySourceTest {
  @TempDir Path dir;

  @Test
  void flag_winsOverEnvironmentAndFile() throws IOException {
    Path file = Files.writeString(dir.resolve("admin.key"), "from-file\n");

    assertThat(AdminKeySource.resolve(" from-flag ", Map.of("VEIL_ADMIN_KEY", "from-env"), file))
        .hasValue("from-flag");
  }

  @Test
  void environment_winsOverFile() throws IOException {
    Path file = Files.writeString(dir.resolve("admin.key"), "from-file\n");

    assertThat(AdminKeySource.resolve(null, Map.of("VEIL_ADMIN_KEY", "from-env"), file))
        .hasValue("from-env");
  }

  @Test
  void blankEnvironment_fallsBackToTheFilesFirstLine() throws IOException {
    Path file = Files.writeString(dir.resolve("admin.key"), "  from-file  \nsecond line\n");

    assertThat(AdminKeySource.resolve(null, Map.of("VEIL_ADMIN_KEY", " "), file))
        .hasValue("from-file");
  }

  @Test
  void nothingAnywhere_isEmpty() {
    assertThat(AdminKeySource.resolve(null, Map.of(), dir.resolve("missing.key"))).isEmpty();
  }

  @Test
  void aFileWithAByteOrderMarkAndCrlf_givesTheKeyAlone() throws IOException {
    Path file = Files.writeString(dir.resolve("admin.key"), "\uFEFFvk1.abc.def\r\n");

    assertThat(AdminKeySource.resolve(null, Map.of(), file)).hasValue("vk1.abc.def");
  }

  @Test
  void emptyFile_isEmpty() throws IOException {
    Path file = Files.writeString(dir.resolve("admin.key"), "\n");

    assertThat(AdminKeySource.resolve(null, Map.of(), file)).isEmpty();
  }
}

package dev.veil.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where {@code veil serve} saves a new admin key: never over a key file that is there already. */
class AdminKeyFileTest {
  @TempDir Path dir;

  @Test
  void aNewKey_goesToAdminKey_orTheFirstFreeNumberedName_andNoKeyFileIsReplaced() throws Exception {
    assertThat(ServeCommand.freeKeyFile(dir)).isEqualTo(dir.resolve("admin.key"));
    ServeCommand.writeSecret(ServeCommand.freeKeyFile(dir), "vk1.first");

    Path second = ServeCommand.freeKeyFile(dir);
    ServeCommand.writeSecret(second, "vk1.second");
    Path third = ServeCommand.freeKeyFile(dir);

    assertThat(second).isEqualTo(dir.resolve("admin-2.key"));
    assertThat(third).isEqualTo(dir.resolve("admin-3.key"));
    assertThat(Files.readString(dir.resolve("admin.key")))
        .isEqualTo("vk1.first" + System.lineSeparator());
    assertThat(Files.readString(second)).isEqualTo("vk1.second" + System.lineSeparator());
    assertThat(Files.getPosixFilePermissions(second))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThatThrownBy(() -> ServeCommand.writeSecret(second, "vk1.third"))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(Files.readString(second)).isEqualTo("vk1.second" + System.lineSeparator());
  }

  @Test
  void aDataDirectoryCreatedForTheKey_isTheOwnersOnly() throws Exception {
    Path data =
        dir.resolve("data-pg"); // with PostgreSQL, the key file is all that is written there

    ServeCommand.writeSecret(ServeCommand.freeKeyFile(data), "vk1.first");

    assertThat(Files.getPosixFilePermissions(data))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
  }
}

package dev.veil.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.common.StoreUnavailableException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Opening stores: failures must be clear and must not leak the password. */
class StoresTest {

  @Test
  void unreachablePostgres_failsNamingTheUrlWithoutPassword() {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    StoreSettings quick = StoreSettings.defaults().withTimeout(Duration.ofSeconds(2));
    assertThatThrownBy(() -> Stores.open("postgresql://veil:hunter2@127.0.0.1:1/veil", quick))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("postgresql://127.0.0.1:1/veil?user=veil")
        .hasMessageNotContaining("hunter2");
    assertThatThrownBy(
            () -> Stores.open("jdbc:postgresql://127.0.0.1:1/veil?password=hunter2", quick))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("127.0.0.1:1")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void embeddedStoreInAnUncreatableDirectory_failsNamingThePath(@TempDir Path dir)
      throws Exception {
    Path blocker = Files.createFile(dir.resolve("not-a-dir"));
    assertThatThrownBy(() -> Stores.open(blocker.resolve("veil.db").toString()))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining(blocker.toString());
  }

  @Test
  void theEmbeddedStore_isReadableByItsOwnerOnly_andAnOpenerStoreIsNarrowed(@TempDir Path dir)
      throws Exception {
    Path fresh = dir.resolve("new").resolve("veil.db");
    try (Store store = Stores.open(fresh.toString())) {
      assertThat(store).isNotNull();
    }
    assertThat(Files.getPosixFilePermissions(fresh))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.getPosixFilePermissions(fresh.getParent()))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));

    Files.setPosixFilePermissions(fresh, PosixFilePermissions.fromString("rw-r--r--"));
    try (Store store = Stores.open(fresh.toString())) {
      assertThat(Files.getPosixFilePermissions(fresh))
          .isEqualTo(PosixFilePermissions.fromString("rw-------"));
      for (String suffix : List.of("-wal", "-shm")) {
        Path companion = fresh.resolveSibling("veil.db" + suffix);
        if (Files.exists(companion)) {
          assertThat(Files.getPosixFilePermissions(companion))
              .as(suffix)
              .isEqualTo(PosixFilePermissions.fromString("rw-------"));
        }
      }
    }
  }

  @Test
  void settings_areValidated() {
    assertThatThrownBy(() -> StoreSettings.defaults().withPoolSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pool size");
    assertThatThrownBy(() -> StoreSettings.defaults().withTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeout");
  }

  @Test
  void migrationScripts_splitIntoStatements() {
    List<String> statements =
        Migrator.statements(
            "-- comment\nCREATE TABLE a (\n  x INT\n);\n\n"
                + "INSERT INTO a (x) VALUES (1);\n-- trailing\n");
    assertThat(statements)
        .containsExactly("CREATE TABLE a (\nx INT\n)", "INSERT INTO a (x) VALUES (1)");
  }

  @Test
  void everyMigration_existsForBothEngines() {
    for (Migrator.Migration m : Migrator.MIGRATIONS) {
      for (String engine : List.of("sqlite", "postgresql")) {
        assertThat(getClass().getClassLoader().getResource(m.resource(engine)))
            .as(m.resource(engine))
            .isNotNull();
      }
    }
  }
}

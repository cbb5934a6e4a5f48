package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first start (docs/spec.md 0) as a user sees it: the key shown once, saved 0600, next steps
 * that work for this data directory.
 */
class ServeBannerIT {
  @TempDir Path dataDir;

  @Test
  void firstStart_printsTheKeyOnce_savesIt0600_andTellsHowToUseItFromThisDataDirectory()
      throws Exception {
    try (ServerProcess server = ServerProcess.start(dataDir, "--set", "salt.buckets=1024")) {
      Path keyFile = dataDir.resolve("admin.key");
      String key = Files.readString(keyFile).strip();

      assertThat(Files.getPosixFilePermissions(keyFile))
          .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
      assertThat(server.output()).filteredOn(line -> line.contains(key)).hasSize(1);
      assertThat(server.output())
          .anyMatch(
              line ->
                  line.contains("VEIL_ADMIN_KEY=\"$(cat " + keyFile + ")\"")
                      && line.contains("admin client create")
                      && line.contains("--port " + server.grpcPort()));
    }
  }
}

package dev.veil.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.common.ChangeCursor;
import dev.veil.common.Versioned;
import dev.veil.optout.OptOut;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An opt-out the embedded store acknowledged survives SIGKILL of the process: a child JVM records
 * opt-outs and reports each acknowledged one; it is killed mid-run; the reopened store must hold
 * every reported one.
 */
class SqliteDurabilityTest {
  private static final int KILL_AFTER_ACKS = 300;
  private static final int MORE_THAN_IT_CAN_WRITE = 10_000_000;

  @TempDir Path dir;

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void acknowledgedOptOuts_surviveSigkill() throws Exception {
    Path db = dir.resolve("veil.db");
    Path childErr = dir.resolve("child-stderr.txt");
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                OptOutWriterMain.class.getName(),
                db.toString(),
                Integer.toString(MORE_THAN_IT_CAN_WRITE))
            .redirectError(childErr.toFile())
            .start();
    List<Integer> acked = new ArrayList<>();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) { // ends when the killed child's pipe closes
        if (line.startsWith("ack ")) {
          acked.add(Integer.parseInt(line.substring(4)));
          if (acked.size() == KILL_AFTER_ACKS) {
            // SIGKILL: no shutdown hooks, no close(). Through the handle, because
            // Process.destroyForcibly() also closes our end of the pipe, and the acks still in
            // it count too.
            child.toHandle().destroyForcibly();
          }
        }
      }
    } finally {
      child.destroyForcibly();
    }
    int exit = child.waitFor();

    assertThat(acked)
        .as(
            "acks before the kill; child stderr:%n%s",
            Files.exists(childErr) ? Files.readString(childErr) : "")
        .hasSizeGreaterThanOrEqualTo(KILL_AFTER_ACKS);
    assertThat(exit).as("child was killed, not finished").isNotZero();

    try (Store reopened = Stores.open("sqlite:" + db)) {
      for (int i : acked) {
        assertThat(reopened.optOuts().find(StoreContractTest.hash(i)))
            .as("acknowledged opt-out %d", i)
            .get()
            .extracting(OptOut::optedOutAt)
            .isEqualTo(Instant.ofEpochMilli(1_000_000L + i));
      }
      List<Versioned<OptOut>> all = new ArrayList<>();
      reopened.optOuts().forEachChange(ChangeCursor.START, all::add);
      // Every acknowledged one is there; at most the one in flight at the kill is extra.
      assertThat(all.size()).isBetween(acked.size(), acked.size() + 1);
    }
  }
}

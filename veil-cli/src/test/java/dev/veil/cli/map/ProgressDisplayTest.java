package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProgressDisplayTest {
  private final StringWriter text = new StringWriter();
  private final AtomicLong nanos = new AtomicLong();

  private ProgressDisplay display(ProgressDisplay.Mode mode) {
    return new ProgressDisplay(new PrintWriter(text, true), mode, nanos::get);
  }

  @Test
  void auto_drawsABarWhenStderrIsATerminal_whateverStdoutIs(@TempDir Path dir) throws IOException {
    Path terminal = Files.createSymbolicLink(dir.resolve("pts"), Path.of("/dev/pts/3"));
    Path logFile = Files.createSymbolicLink(dir.resolve("file"), Path.of("/home/me/map.log"));
    Path pipe = Files.createSymbolicLink(dir.resolve("pipe"), Path.of("pipe:[40613]"));

    // With a console (stdin and stdout on a terminal) but stderr in a file: lines, not a bar.
    assertThat(ProgressDisplay.auto(logFile, true)).isEqualTo(ProgressDisplay.Mode.LINES);
    assertThat(ProgressDisplay.auto(pipe, true)).isEqualTo(ProgressDisplay.Mode.LINES);
    // Without one (stdout redirected) but stderr on a terminal: the bar.
    assertThat(ProgressDisplay.auto(terminal, false)).isEqualTo(ProgressDisplay.Mode.BAR);
    // No such link on this system: the console decides.
    assertThat(ProgressDisplay.auto(dir.resolve("none"), true)).isEqualTo(ProgressDisplay.Mode.BAR);
    assertThat(ProgressDisplay.auto(dir.resolve("none"), false))
        .isEqualTo(ProgressDisplay.Mode.LINES);
  }

  @Test
  void bar_showsCountPercentRateAndTimeLeft_redrawnInPlace() {
    ProgressDisplay d = display(ProgressDisplay.Mode.BAR);
    d.phase("mapping");
    nanos.set(Duration.ofSeconds(5).toNanos());

    d.progress(450_000, 1_000_000);

    assertThat(text.toString())
        .isEqualTo(
            "\rmapping [==========>             ]  45% 450,000/1,000,000  90,000/s  0:07 left   ");
  }

  @Test
  void lines_areThrottledToOneEveryFiveSeconds_exceptTheLast() {
    ProgressDisplay d = display(ProgressDisplay.Mode.LINES);
    d.phase("mapping");
    nanos.set(Duration.ofSeconds(1).toNanos());
    d.progress(10, 100);
    nanos.set(Duration.ofSeconds(6).toNanos());
    d.progress(60, 100);
    nanos.set(Duration.ofSeconds(7).toNanos());
    d.progress(100, 100);
    d.progress(100, 100);

    assertThat(text.toString().lines())
        .containsExactly(
            "veil map: mapping  60% 60/100  10/s  0:04 left",
            "veil map: mapping 100% 100/100  14/s  0:00 left");
  }

  @Test
  void noneMode_printsNothing() {
    ProgressDisplay none = display(ProgressDisplay.Mode.NONE);
    none.phase("mapping");
    none.progress(1, 1);
    none.message("done");

    assertThat(text.toString()).isEmpty();
  }

  @Test
  void clock_formatsMinutesAndHours() {
    assertThat(ProgressDisplay.clock(Duration.ofSeconds(65))).isEqualTo("1:05");
    assertThat(ProgressDisplay.clock(Duration.ofSeconds(3725))).isEqualTo("1:02:05");
  }
}

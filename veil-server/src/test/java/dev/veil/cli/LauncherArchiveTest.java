package dev.veil.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./veil} launcher's class-data archives, with a stand-in {@code java} on the PATH that
 * records its arguments: which archive a start maps or writes, and which written archive (a
 * "dump") the next start adopts. For {@code map}, only a dump marked by a run that mapped
 * identifiers ({@code dev.veil.cli.map.ArchiveMark}).
 */
class LauncherArchiveTest {
  @TempDir
  Path dir;
  private Path target;
  private Path calls;
  private Path failLoads;

  @BeforeEach
  void layOut() throws IOException {
    Path launcher = Path.of(System.getProperty("user.dir")).resolve("../veil").normalize();
    Files.copy(launcher, dir.resolve("veil"), StandardCopyOption.COPY_ATTRIBUTES);
    target = Files.createDirectories(dir.resolve("veil-server/target"));
    Files.writeString(target.resolve("veil.jar"), "a stand-in: the launcher only checks that it exists");
    Path bin = Files.createDirectories(dir.resolve("bin"));
    calls = dir.resolve("calls.txt");
    failLoads = dir.resolve("fail-test-loads");
    // Records each call; the launcher's test load of a dump (-Xshare:on) fails while failLoads exists.
    Path java = bin.resolve("java");
    Files.writeString(java, "#!/usr/bin/env bash\n"
        + "echo \"$*\" >>'" + calls + "'\n"
        + "case \"$*\" in *-Xshare:on*) [ -e '" + failLoads + "' ] && exit 1 ;; esac\n"
        + "exit 0\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  @Test
  void firstMap_writesADump_andNamesItForTheMark() throws Exception {
    List<String> call = start("map", "--version");

    String dump = option(call, "-XX:ArchiveClassesAtExit=");
    assertThat(dump).startsWith(target.resolve("veil-map-").toString()).endsWith(".dump");
    assertThat(option(call, "-Dveil.archive=")).isEqualTo(dump);
  }

  @Test
  void unmarkedMapDump_isDropped_andTheNextRunWritesAnother() throws Exception {
    Path dump = deadDump("map");

    List<String> call = start("map", "--in", "x", "--out", "y");

    assertThat(dump).doesNotExist();
    assertThat(archives("map")).isEmpty();
    assertThat(option(call, "-XX:ArchiveClassesAtExit=")).endsWith(".dump");
  }

  @Test
  void markedMapDump_isAdopted_andMapped() throws Exception {
    Path dump = deadDump("map");
    Files.createFile(Path.of(dump + ".ok"));

    List<String> call = start("map", "--in", "x", "--out", "y");

    Path archive = Path.of(dump.toString().replaceFirst("\\.[0-9]+\\.dump$", ""));
    assertThat(archive).exists();
    assertThat(dump).doesNotExist();
    assertThat(Path.of(dump + ".ok")).doesNotExist();
    assertThat(option(call, "-XX:SharedArchiveFile=")).isEqualTo(archive.toString());
    assertThat(String.join(" ", call)).doesNotContain("-Dveil.archive=").doesNotContain("ArchiveClassesAtExit");
  }

  @Test
  void markedDumpThatDoesNotLoad_isDropped() throws Exception {
    Path dump = deadDump("map");
    Files.createFile(Path.of(dump + ".ok"));
    Files.createFile(failLoads); // as a dump cut short by a kill would

    List<String> call = start("map", "--in", "x", "--out", "y");

    assertThat(dump).doesNotExist();
    assertThat(Path.of(dump + ".ok")).doesNotExist();
    assertThat(archives("map")).isEmpty();
    assertThat(option(call, "-XX:ArchiveClassesAtExit=")).endsWith(".dump");
  }

  @Test
  void serveDump_isAdoptedWithoutAMark() throws Exception {
    Path dump = deadDump("serve");

    List<String> call = start("serve", "--version");

    assertThat(dump).doesNotExist();
    assertThat(archives("serve")).hasSize(1);
    assertThat(option(call, "-XX:SharedArchiveFile=")).isEqualTo(archives("serve").get(0).toString());
    assertThat(String.join(" ", call)).doesNotContain("-Dveil.archive=");
  }

  /**
   * A dump under this JVM's archive name written by a process that has exited: the name comes from
   * a first start (which only asks for one), the pid from a process that has ended.
   */
  private Path deadDump(String command) throws Exception {
    String asked = option(start(command, "--version"), "-XX:ArchiveClassesAtExit=");
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor(10, TimeUnit.SECONDS);
    Path dump = Path.of(asked.replaceFirst("\\.[0-9]+\\.dump$", "." + gone.pid() + ".dump"));
    Files.writeString(dump, "an archive");
    Files.deleteIfExists(calls);
    return dump;
  }

  /** Runs the launcher; returns the arguments of the JVM it started (its last call of java). */
  private List<String> start(String... args) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(Stream.concat(Stream.of("bash", dir.resolve("veil").toString()),
        Stream.of(args)).toList()).redirectErrorStream(true);
    pb.environment().put("PATH", dir.resolve("bin") + ":" + System.getenv("PATH"));
    pb.environment().put("VEIL_NO_BUILD", "1");
    pb.environment().remove("VEIL_CDS");
    pb.environment().remove("VEIL_JAVA_OPTS");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    List<String> lines = Files.readAllLines(calls);
    return List.of(lines.get(lines.size() - 1).split(" "));
  }

  private List<Path> archives(String command) throws IOException {
    try (Stream<Path> files = Files.list(target)) {
      return files.filter(f -> f.getFileName().toString().startsWith("veil-" + command + "-"))
          .filter(f -> f.getFileName().toString().endsWith(".jsa")).toList();
    }
  }

  private static String option(List<String> call, String prefix) {
    return call.stream().filter(a -> a.startsWith(prefix)).map(a -> a.substring(prefix.length())).findFirst()
        .orElseThrow(() -> new AssertionError("no " + prefix + " in " + call));
  }
}

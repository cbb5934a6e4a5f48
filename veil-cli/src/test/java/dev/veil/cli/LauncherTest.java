package dev.veil.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./veil} launcher, with a stand-in {@code java} on the PATH that records its arguments
 * and a stand-in {@code ./mvnw} that records that it ran: when a start builds first (a source newer
 * than the jar), which class-data archive a start maps or writes, and which written archive (a
 * "dump") the next start adopts. For {@code map}, only a dump marked by a run that mapped
 * identifiers ({@code dev.veil.cli.map.ArchiveMark}). An archive serves only the java that wrote
 * it.
 */
class LauncherTest {
  /** The launcher's options that have the top tier compile the JDK's AES-GCM code at once. */
  private static final String GHASH =
      "-XX:CompileCommand=CompileThresholdScaling,com.sun.crypto.provider.GHASH::update,0.00005";

  private static final String COUNTER =
      "-XX:CompileCommand=CompileThresholdScaling,com.sun.crypto.provider.CounterMode::crypt,"
          + "0.00005";
  private static final String GCM =
      "-XX:CompileCommand=CompileThresholdScaling,"
          + "com.sun.crypto.provider.GaloisCounterMode::implGCMCrypt,0.00005";

  @TempDir Path dir;
  private Path target;
  private Path calls;
  private Path failLoads;
  private Path builds;
  private Path bin;

  @BeforeEach
  void layOut() throws IOException {
    Path launcher = Path.of(System.getProperty("user.dir")).resolve("../veil").normalize();
    Files.copy(launcher, dir.resolve("veil"), StandardCopyOption.COPY_ATTRIBUTES);
    target = Files.createDirectories(dir.resolve("veil-cli/target"));
    Files.writeString(
        target.resolve("veil.jar"), "a stand-in: the launcher only checks that it exists");
    calls = dir.resolve("calls.txt");
    failLoads = dir.resolve("fail-test-loads");
    builds = dir.resolve("builds.txt");
    bin = standInJava("bin");
    Path mvnw = dir.resolve("mvnw");
    Files.writeString(mvnw, "#!/usr/bin/env bash\necho \"$*\" >>'" + builds + "'\n");
    Files.setPosixFilePermissions(mvnw, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /**
   * A directory {@code name} with a stand-in java that records each call; its test load of a dump
   * (-Xshare:on) fails while failLoads exists.
   */
  private Path standInJava(String name) throws IOException {
    return standInJava(name, "");
  }

  /** The same, its calls recorded after {@code tag}. */
  private Path standInJava(String name, String tag) throws IOException {
    Path b = Files.createDirectories(dir.resolve(name));
    Path java = b.resolve("java");
    Files.writeString(
        java,
        "#!/usr/bin/env bash\n"
            + "echo \""
            + tag
            + "$*\" >>'"
            + calls
            + "'\n"
            + "case \"$*\" in *-Xshare:on*) [ -e '"
            + failLoads
            + "' ] && exit 1 ;; esac\n"
            + "exit 0\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    return b;
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
    assertThat(String.join(" ", call))
        .doesNotContain("-Dveil.archive=")
        .doesNotContain("ArchiveClassesAtExit");
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
    assertThat(option(call, "-XX:SharedArchiveFile="))
        .isEqualTo(archives("serve").get(0).toString());
    assertThat(String.join(" ", call)).doesNotContain("-Dveil.archive=");
  }

  @Test
  void archiveOfAnotherJava_isNotMapped_andThatJavaWritesItsOwn() throws Exception {
    Path dump = deadDump("map");
    Files.createFile(Path.of(dump + ".ok"));
    String archive = option(start("map", "--in", "x", "--out", "y"), "-XX:SharedArchiveFile=");
    Path otherBin = standInJava("other-jdk/bin");

    List<String> other = start(otherBin, true, "map", "--in", "x", "--out", "y");

    assertThat(String.join(" ", other)).doesNotContain("-XX:SharedArchiveFile=");
    assertThat(option(other, "-XX:ArchiveClassesAtExit=")).endsWith(".dump");
    assertThat(option(start("map", "--in", "x", "--out", "y"), "-XX:SharedArchiveFile="))
        .isEqualTo(archive);
  }

  @Test
  void archiveOlderThanTheJar_isDropped() throws Exception {
    Path dump = deadDump("serve");
    String archive = option(start("serve", "--version"), "-XX:SharedArchiveFile=");
    Files.setLastModifiedTime(
        target.resolve("veil.jar"),
        FileTime.fromMillis(Files.getLastModifiedTime(Path.of(archive)).toMillis() + 10_000));

    List<String> call = start("serve", "--version");

    assertThat(Path.of(archive)).doesNotExist();
    assertThat(Path.of(archive.replaceFirst("\\.jsa$", ".jvm"))).doesNotExist();
    assertThat(option(call, "-XX:ArchiveClassesAtExit=")).endsWith(".dump");
    assertThat(dump).doesNotExist();
  }

  @Test
  void map_startsOnTheBuildsRuntimeImage_madeFromTheJavaOnPath() throws Exception {
    runtimeImage(bin);

    assertThat(start("map", "--in", "x", "--out", "y").get(0)).isEqualTo("image");
    assertThat(start("serve", "--version").get(0)).isNotEqualTo("image");
    assertThat(start("decrypt", "--version").get(0)).isNotEqualTo("image");
  }

  @Test
  void runtimeImageOfAnotherJava_isNotUsed() throws Exception {
    runtimeImage(standInJava("other-jdk/bin"));

    assertThat(start("map", "--in", "x", "--out", "y").get(0)).isNotEqualTo("image");
  }

  @Test
  void runtimeImage_canBeTurnedOff() throws Exception {
    runtimeImage(bin);

    List<String> call =
        start(bin, true, Map.of("VEIL_MAP_RUNTIME", "0"), "map", "--in", "x", "--out", "y");

    assertThat(call.get(0)).isNotEqualTo("image");
  }

  /**
   * The runtime image the build makes (map-runtime.sh), as made from the java in {@code madeFrom}.
   */
  private void runtimeImage(Path madeFrom) throws IOException {
    standInJava("veil-cli/target/map-runtime/bin", "image ");
    Files.createSymbolicLink(
        target.resolve("map-runtime.jvm"), madeFrom.resolve("java").toRealPath());
  }

  @Test
  void mapOverV1_stopsAtTheFirstTier_whileMapOverV3_keepsEveryTierForTheCipher() throws Exception {
    List<String> v1 = start("map", "--in", "x.txt");
    List<String> v1EmptySecret =
        start(bin, true, Map.of("VEIL_CLIENT_SECRET", ""), "map", "--in", "x.txt");
    List<String> v3Flag = start("map", "--client-secret", "s", "--in", "x.txt");
    List<String> v3Joined = start("map", "--client-secret=s", "--in", "x.txt");
    List<String> v3Env =
        start(bin, true, Map.of("VEIL_CLIENT_SECRET", "s"), "map", "--in", "x.txt");

    assertThat(v1)
        .contains("-XX:TieredStopAtLevel=1")
        .doesNotContain(GHASH, COUNTER, GCM, "-XX:Tier4InvocationThreshold=200000");
    assertThat(v1EmptySecret).contains("-XX:TieredStopAtLevel=1");
    for (List<String> v3 : List.of(v3Flag, v3Joined, v3Env)) {
      assertThat(v3)
          .doesNotContain("-XX:TieredStopAtLevel=1")
          .contains(GHASH, COUNTER, GCM, "-XX:Tier4InvocationThreshold=200000")
          .noneMatch(option -> option.contains("com.sun.crypto.provider.*"));
      assertThat(v3.indexOf(GHASH)).isGreaterThan(v3.indexOf("-XX:CompileCommand=quiet"));
      assertThat(v3.indexOf(COUNTER)).isGreaterThan(v3.indexOf("-XX:CompileCommand=quiet"));
      assertThat(v3.indexOf(GCM)).isGreaterThan(v3.indexOf("-XX:CompileCommand=quiet"));
    }
  }

  @Test
  void serve_hasTheTopTierCompileTheCipherAtOnce_otherCommandsDoNot() throws Exception {
    List<String> serve = start("serve", "--demo");
    List<String> withOptions =
        start(bin, true, Map.of("VEIL_JAVA_OPTS", "-Xmx2g"), "serve", "--demo");
    List<String> admin = start("admin", "salts", "status");

    for (List<String> call : List.of(serve, withOptions)) {
      assertThat(call)
          .contains(GHASH, COUNTER, GCM)
          .doesNotContain("-XX:TieredStopAtLevel=1", "-XX:Tier4InvocationThreshold=200000");
      assertThat(call.indexOf(GHASH)).isGreaterThan(call.indexOf("-XX:CompileCommand=quiet"));
    }
    assertThat(withOptions.indexOf("-Xmx2g")).isGreaterThan(withOptions.indexOf(GCM));
    assertThat(admin).doesNotContain(GHASH, COUNTER, GCM);
  }

  @Test
  void sourcesOlderThanTheJar_areNotBuilt() throws Exception {
    sources(-60_000);

    start(bin, false, "admin", "--version");

    assertThat(builds).doesNotExist();
  }

  @Test
  void aSourceFileNewerThanTheJar_isBuiltFirst() throws Exception {
    Path changed = sources(-60_000);
    Files.setLastModifiedTime(changed, FileTime.fromMillis(System.currentTimeMillis() + 60_000));

    start(bin, false, "admin", "--version");

    assertThat(Files.readString(builds)).contains("package");
  }

  @Test
  void aSourceFileRemoved_isBuiltFirst() throws Exception {
    Path removed = sources(-60_000);
    Files.delete(removed); // its directory is now newer than the jar
    Files.setLastModifiedTime(
        removed.getParent(), FileTime.fromMillis(System.currentTimeMillis() + 60_000));

    start(bin, false, "admin", "--version");

    assertThat(Files.readString(builds)).contains("package");
  }

  /**
   * Lays out a source tree and the build files, all (directories too) {@code offsetMillis} from the
   * jar's time; returns one source file.
   */
  private Path sources(long offsetMillis) throws IOException {
    long jarTime = Files.getLastModifiedTime(target.resolve("veil.jar")).toMillis();
    FileTime old = FileTime.fromMillis(jarTime + offsetMillis);
    Path file = null;
    for (String module :
        List.of("veil-core", "veil-client", "veil-grpc", "veil-server", "veil-cli")) {
      Path pkg = Files.createDirectories(dir.resolve(module + "/src/main/java/dev/veil"));
      file = Files.writeString(pkg.resolve("A.java"), "class A {}");
      Files.writeString(dir.resolve(module + "/pom.xml"), "<project/>");
      Files.setLastModifiedTime(dir.resolve(module + "/pom.xml"), old);
    }
    Files.writeString(dir.resolve("pom.xml"), "<project/>");
    Files.setLastModifiedTime(dir.resolve("pom.xml"), old);
    try (Stream<Path> tree = Files.walk(dir).filter(p -> p.toString().contains("/src/main"))) {
      for (Path p : tree.toList()) {
        Files.setLastModifiedTime(p, old);
      }
    }
    return file;
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
    return start(bin, true, args);
  }

  /**
   * Runs the launcher with {@code javaDir} first on the PATH, with or without its check for sources
   * newer than the jar; returns the arguments of the JVM it started.
   */
  private List<String> start(Path javaDir, boolean noBuild, String... args) throws Exception {
    return start(javaDir, noBuild, Map.of(), args);
  }

  /** The same, with {@code env} added to the launcher's environment. */
  private List<String> start(Path javaDir, boolean noBuild, Map<String, String> env, String... args)
      throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(
                Stream.concat(Stream.of("bash", dir.resolve("veil").toString()), Stream.of(args))
                    .toList())
            .redirectErrorStream(true);
    pb.environment().put("PATH", javaDir + ":" + System.getenv("PATH"));
    if (noBuild) {
      pb.environment().put("VEIL_NO_BUILD", "1");
    } else {
      pb.environment().remove("VEIL_NO_BUILD");
    }
    pb.environment().remove("VEIL_CDS");
    pb.environment().remove("VEIL_JAVA_OPTS");
    pb.environment().remove("VEIL_MAP_RUNTIME");
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    List<String> lines = Files.readAllLines(calls);
    return List.of(lines.get(lines.size() - 1).split(" "));
  }

  private List<Path> archives(String command) throws IOException {
    try (Stream<Path> files = Files.list(target)) {
      return files
          .filter(f -> f.getFileName().toString().startsWith("veil-" + command + "-"))
          .filter(f -> f.getFileName().toString().endsWith(".jsa"))
          .toList();
    }
  }

  private static String option(List<String> call, String prefix) {
    return call.stream()
        .filter(a -> a.startsWith(prefix))
        .map(a -> a.substring(prefix.length()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + prefix + " in " + call));
  }
}

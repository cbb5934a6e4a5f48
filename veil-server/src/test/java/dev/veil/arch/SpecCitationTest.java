package dev.veil.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every citation of the specification in the repository ({@code docs/spec.md 1.4}, {@code
 * docs/spec.md section 2}) names a section that {@code docs/spec.md} has, so a reader who follows
 * one lands on the rule it refers to. Scans every file of the repository except build output,
 * installed packages and version control.
 */
class SpecCitationTest {
  private static final Pattern CITATION =
      Pattern.compile("docs/spec\\.md (?:section )?(\\d+(?:\\.\\d+)?)");

  /** The form citations had before the specification was in the repository: it points nowhere. */
  private static final Pattern UNRESOLVED = Pattern.compile("\\bSPEC (?:section )?\\d");

  private static final Pattern HEADING = Pattern.compile("(?m)^#{2,3} (\\d+(?:\\.\\d+)?)\\.? ");
  private static final Set<String> SKIPPED_DIRECTORIES =
      Set.of("target", "node_modules", ".git", "data");
  private static final long LARGEST_FILE = 2 * 1024 * 1024;

  private final Path root = repositoryRoot();

  @Test
  void everyCitedSection_isAHeadingOfTheSpecification() {
    Set<String> sections = sections(read(root.resolve("docs/spec.md")));
    TreeMap<String, List<String>> missing = new TreeMap<>();
    int citations = 0;
    for (Path file : files()) {
      Matcher m = CITATION.matcher(read(file));
      while (m.find()) {
        citations++;
        if (!sections.contains(m.group(1))) {
          missing
              .computeIfAbsent(m.group(1), k -> new ArrayList<>())
              .add(root.relativize(file).toString());
        }
      }
    }
    assertThat(citations).as("citations of docs/spec.md found in the repository").isGreaterThan(50);
    assertThat(missing)
        .as("cited sections that docs/spec.md has no heading for, with the files citing them")
        .isEmpty();
  }

  @Test
  void noCitation_usesTheOldSpecForm() {
    List<String> offenders = new ArrayList<>();
    for (Path file : files()) {
      if (UNRESOLVED.matcher(read(file)).find()) {
        offenders.add(root.relativize(file).toString());
      }
    }
    assertThat(offenders).as("files citing \"SPEC x.y\": write \"docs/spec.md x.y\"").isEmpty();
  }

  @Test
  void theSpecification_hasEverySectionFromZeroToTwelve() {
    Set<String> sections = sections(read(root.resolve("docs/spec.md")));
    for (int n = 0; n <= 12; n++) {
      assertThat(sections).contains(Integer.toString(n));
    }
  }

  private static Set<String> sections(String spec) {
    Set<String> sections = new TreeSet<>();
    Matcher m = HEADING.matcher(spec);
    while (m.find()) {
      sections.add(m.group(1));
    }
    return sections;
  }

  private List<Path> files() {
    List<Path> files = new ArrayList<>();
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
              boolean skip =
                  !dir.equals(root) && SKIPPED_DIRECTORIES.contains(dir.getFileName().toString());
              return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
              if (attrs.isRegularFile() && attrs.size() <= LARGEST_FILE) {
                files.add(file);
              }
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** The file as text; citations are ASCII, so any byte sequence reads without an error. */
  private static String read(Path file) {
    try {
      return new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path repositoryRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("docs/spec.md"))
          && Files.isRegularFile(p.resolve("mvnw"))) {
        return p;
      }
    }
    throw new IllegalStateException("no docs/spec.md above " + Path.of("").toAbsolutePath());
  }
}

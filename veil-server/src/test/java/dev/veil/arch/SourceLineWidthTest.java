package dev.veil.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every line of Java source in every module fits the formatter's width, 100 columns.
 * google-java-format (checked by Spotless in the build) breaks code to that width but leaves a long
 * string literal, comment or identifier as it is; this test catches those.
 */
class SourceLineWidthTest {
  private static final int WIDTH = 100;

  @Test
  void everyJavaLine_fitsTheFormattersWidth() throws IOException {
    Path root = repositoryRoot();
    List<String> tooLong = new ArrayList<>();
    int files = 0;
    try (Stream<Path> modules = Files.list(root)) {
      for (Path src : modules.map(m -> m.resolve("src")).filter(Files::isDirectory).toList()) {
        try (Stream<Path> java = Files.walk(src)) {
          for (Path file : java.filter(p -> p.toString().endsWith(".java")).toList()) {
            files++;
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
              if (lines.get(i).codePointCount(0, lines.get(i).length()) > WIDTH) {
                tooLong.add(root.relativize(file) + ":" + (i + 1));
              }
            }
          }
        }
      }
    }
    assertThat(files).as("Java files found under */src").isGreaterThan(500);
    assertThat(tooLong)
        .as("lines longer than %d columns (split the string or comment)", WIDTH)
        .isEmpty();
  }

  private static Path repositoryRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("mvnw")) && Files.isDirectory(p.resolve("veil-core"))) {
        return p;
      }
    }
    throw new UncheckedIOException(
        new IOException("no repository root above " + Path.of("").toAbsolutePath()));
  }
}

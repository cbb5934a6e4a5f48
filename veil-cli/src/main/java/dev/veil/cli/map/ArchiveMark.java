package dev.veil.cli.map;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Tells the {@code veil} launcher that this run imported and mapped identifiers, so that the
 * class-data archive its JVM writes at exit covers what every later run does and is worth keeping.
 *
 * <p>The launcher has the first {@code veil map} after a build write an archive of the classes it
 * loaded. A run that maps nothing ({@code --version}, a usage error, a resume with nothing left, a
 * refresh) loads few of them: an archive of such a run would leave every later run to load and
 * verify the classes of the input, the requests, the answers and the output from the jars, about 25
 * ms of each start (docs/benchmarks-client.md). So when the JVM writes an archive, the launcher
 * names it in the system property {@value #PROPERTY}; a run that mapped creates {@code NAME.ok}
 * beside it, and the launcher adopts only archives with that mark (it deletes the others, and the
 * next run writes one again).
 */
final class ArchiveMark {
  static final String PROPERTY = "veil.archive";

  private ArchiveMark() {}

  /** Marks the archive this JVM will write, if it writes one and the run sent identifiers. */
  static void afterImport(long identifiersSent) {
    String archive = System.getProperty(PROPERTY);
    if (archive == null || archive.isEmpty() || identifiersSent <= 0) {
      return;
    }
    try {
      Files.createFile(Path.of(archive + ".ok"));
    } catch (FileAlreadyExistsException e) {
      // marked already: nothing to do
    } catch (IOException | InvalidPathException e) {
      // Not a failure of the run: without the mark the launcher drops this archive and the next
      // run writes another; the run's result stands either way.
    }
  }
}

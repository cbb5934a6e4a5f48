package dev.veil.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Files and directories only their owner may read: the data directory, the embedded store (keys and
 * salts) and admin key files. On a file system without POSIX permissions they are created with its
 * defaults.
 */
public final class PrivateFiles {
  /** rw------- */
  public static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  private static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY =
      PosixFilePermissions.fromString("rwx------");

  private PrivateFiles() {}

  /** Creates {@code dir} and its missing parents, mode 0700; one that exists is left as it is. */
  public static void createDirectories(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    try {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIRECTORY));
    } catch (UnsupportedOperationException notPosix) {
      Files.createDirectories(dir);
    }
  }

  /**
   * Creates the new, empty file {@code file}, mode 0600.
   *
   * @throws java.nio.file.FileAlreadyExistsException if it exists: a file is never replaced
   */
  public static void createFile(Path file) throws IOException {
    try {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    } catch (UnsupportedOperationException notPosix) {
      Files.createFile(file);
    }
  }
}

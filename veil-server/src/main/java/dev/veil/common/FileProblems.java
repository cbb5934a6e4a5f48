package dev.veil.common;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** File system failures in words, for messages to a person. */
public final class FileProblems {
  private FileProblems() {}

  /**
   * What went wrong and with which file: the JDK's message for these is often the file's name alone
   * ({@code AccessDeniedException}, {@code NoSuchFileException}).
   */
  public static String describe(FileSystemException e) {
    String what =
        e instanceof NoSuchFileException
            ? "no such file"
            : e instanceof AccessDeniedException
                ? "permission denied"
                : e instanceof NotDirectoryException
                    ? "not a directory"
                    : e instanceof FileAlreadyExistsException
                        ? "already exists"
                        : e.getReason() != null ? e.getReason() : "cannot use the file";
    return what
        + ": "
        + e.getFile()
        + (e.getOtherFile() != null ? " (and " + e.getOtherFile() + ")" : "");
  }
}

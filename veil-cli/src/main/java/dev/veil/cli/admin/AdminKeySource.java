package dev.veil.cli.admin;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the admin key: the flag if given, else the {@code VEIL_ADMIN_KEY} environment variable if
 * not blank, else the first line of the key file ({@code veil serve} writes it at first start; a
 * leading byte order mark is dropped).
 */
final class AdminKeySource {
  private AdminKeySource() {}

  /**
   * @throws UncheckedIOException if the key file exists but cannot be read
   */
  static Optional<String> resolve(String flag, Map<String, String> env, Path file) {
    if (flag != null) {
      return Optional.of(flag.strip());
    }
    String fromEnv = env.get(AdminOptions.KEY_ENV);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return Optional.of(fromEnv.strip());
    }
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      String text = withoutByteOrderMark(Files.readString(file, StandardCharsets.UTF_8)).strip();
      return text.isEmpty()
          ? Optional.empty()
          : Optional.of(text.lines().findFirst().orElse("").strip());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the admin key file " + file, e);
    }
  }

  /** Editors on Windows start a UTF-8 file with U+FEFF, which is no part of the key. */
  private static String withoutByteOrderMark(String text) {
    return text.startsWith("\uFEFF") ? text.substring(1) : text;
  }
}

package dev.veil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.veil.testing.CliRun;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class VersionTest {
  @ParameterizedTest
  @ValueSource(strings = {"", "serve", "map", "decrypt"})
  void everyCommandWithStandardHelpOptions_printsTheVersionOfVeil(String command) {
    CliRun run = command.isEmpty() ? CliRun.of("--version") : CliRun.of(command, "--version");

    assertEquals(0, run.exitCode());
    assertEquals("veil 0.1.0" + System.lineSeparator(), run.out());
  }
}

package dev.veil.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code veil} launcher: {@code veil serve}, {@code veil admin ...}. */
@Command(
    name = "veil",
    mixinStandardHelpOptions = true,
    version = "veil 0.1.0",
    description = "Veil: identity tokens and mapping.",
    subcommands = {ServeCommand.class, AdminCommand.class, MapCommand.class, DecryptCommand.class})
public final class Main implements Runnable {
  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns the exit code (tests call this instead of main). */
  public static int run(String... args) {
    return new CommandLine(new Main()).execute(args);
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }
}

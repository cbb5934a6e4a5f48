package dev.veil.cli;

import java.util.Map;
import java.util.function.Supplier;
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
  /**
   * Client commands that run without the server's and the admin client's classes. Building the
   * whole command tree loads those (gRPC, protobuf) and costs a client command about a third of
   * its start-up, so these are registered alone when named.
   */
  private static final Map<String, Supplier<Object>> CLIENT_COMMANDS =
      Map.of("map", MapCommand::new, "decrypt", DecryptCommand::new);

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns the exit code (tests call this instead of main). */
  public static int run(String... args) {
    Supplier<Object> client = args.length > 0 ? CLIENT_COMMANDS.get(args[0]) : null;
    if (client != null) {
      return new CommandLine(new ClientCommand()).addSubcommand(args[0], client.get()).execute(args);
    }
    return new CommandLine(new Main()).execute(args);
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /** The root for a client command alone: same name and version as {@link Main}. */
  @Command(name = "veil", mixinStandardHelpOptions = true, version = "veil 0.1.0")
  static final class ClientCommand implements Runnable {
    @Override
    public void run() {
      new CommandLine(new Main()).usage(System.out);
    }
  }
}

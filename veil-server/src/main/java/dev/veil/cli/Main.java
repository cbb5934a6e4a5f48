package dev.veil.cli;

import dev.veil.cli.map.MapArguments;
import dev.veil.cli.map.MapRun;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code veil} launcher: {@code veil serve}, {@code veil admin ...}. */
@Command(
    name = "veil",
    mixinStandardHelpOptions = true,
    version = Main.VERSION,
    description = "Veil: identity tokens and mapping.",
    subcommands = {ServeCommand.class, AdminCommand.class, MapCommand.class, DecryptCommand.class})
public final class Main implements Runnable {
  /** What {@code --version} prints, for every command. */
  static final String VERSION = "veil 0.1.0";

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
    if (args.length > 0 && args[0].equals("map")) {
      MapArguments.Parsed plain = MapArguments.parse(Arrays.asList(args).subList(1, args.length));
      if (plain != null) {
        return new MapRun(new PrintWriter(System.err, true), err -> clientCommandLine("map").usage(err), plain.server(),
            plain.settings()).run();
      }
    }
    if (args.length > 0 && CLIENT_COMMANDS.containsKey(args[0])) {
      return clientCommandLine(args[0]).getParent().execute(args);
    }
    return new CommandLine(new Main()).execute(args);
  }

  /** The command line of one client command alone, as {@link #run} builds it. */
  private static CommandLine clientCommandLine(String name) {
    CommandLine root = new CommandLine(new ClientCommand()).addSubcommand(name, CLIENT_COMMANDS.get(name).get());
    return root.getSubcommands().get(name);
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /** The root for a client command alone: same name and version as {@link Main}. */
  @Command(name = "veil", mixinStandardHelpOptions = true, version = VERSION)
  static final class ClientCommand implements Runnable {
    @Override
    public void run() {
      new CommandLine(new Main()).usage(System.out);
    }
  }
}

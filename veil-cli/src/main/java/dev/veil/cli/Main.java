package dev.veil.cli;

import dev.veil.cli.map.MapArguments;
import dev.veil.cli.map.MapRun;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.Arrays;
import java.util.function.Consumer;
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

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns the exit code (tests call this instead of main). */
  public static int run(String... args) {
    if (args.length > 0 && args[0].equals("map")) {
      MapArguments.Parsed plain = MapArguments.parse(Arrays.asList(args).subList(1, args.length));
      if (plain != null) {
        // The terminal's encoding, as System.err itself writes it.
        PrintWriter err =
            new PrintWriter(new OutputStreamWriter(System.err, Charset.defaultCharset()), true);
        return new MapRun(err, new MapUsage(), plain.server(), plain.settings()).run();
      }
    }
    Object client = args.length > 0 ? clientCommand(args[0]) : null;
    if (client != null) {
      return clientCommandLine(args[0], client).getParent().execute(args);
    }
    return new CommandLine(new Main()).execute(args);
  }

  /**
   * A client command, which runs without the server's and the admin client's classes, or null.
   * Building the whole command tree loads those (gRPC, protobuf) and costs a client command about a
   * third of its start-up, so these are registered alone when named. A switch, not a map of
   * constructor references: this runs first in every {@code veil map}, and the JVM's first lambda
   * linkage cost it about 20 ms there (docs/benchmarks-client.md, "The way to the first request").
   */
  private static Object clientCommand(String name) {
    return switch (name) {
      case "map" -> new MapCommand();
      case "decrypt" -> new DecryptCommand();
      default -> null;
    };
  }

  /** The command line of one client command alone, as {@link #run} builds it. */
  private static CommandLine clientCommandLine(String name, Object command) {
    CommandLine root = new CommandLine(new ClientCommand()).addSubcommand(name, command);
    return root.getSubcommands().get(name);
  }

  /**
   * Prints {@code veil map}'s usage after a usage error (a class, not a lambda: see {@link
   * #clientCommand}).
   */
  private static final class MapUsage implements Consumer<PrintWriter> {
    @Override
    public void accept(PrintWriter err) {
      clientCommandLine("map", new MapCommand()).usage(err);
    }
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

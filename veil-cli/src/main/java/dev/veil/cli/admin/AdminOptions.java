package dev.veil.cli.admin;

import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * Where the admin server is and which key to present. Mixed into {@code veil admin} with inherited
 * scope, so the options may follow {@code admin} or any of its subcommands. Defaults are applied on
 * read rather than declared, so a subcommand never resets a value given earlier on the line.
 */
public final class AdminOptions {
  static final String DEFAULT_HOST = "127.0.0.1";
  static final int DEFAULT_PORT = 9090;
  static final String KEY_ENV = "VEIL_ADMIN_KEY";
  static final Path KEY_FILE = Path.of("data", "admin.key");

  @Option(
      names = "--host",
      scope = ScopeType.INHERIT,
      paramLabel = "HOST",
      description = "Admin gRPC host (default: " + DEFAULT_HOST + ").")
  String host;

  @Option(
      names = "--port",
      scope = ScopeType.INHERIT,
      paramLabel = "PORT",
      description = "Admin gRPC port (default: " + DEFAULT_PORT + ").")
  Integer port;

  @Option(
      names = "--key",
      scope = ScopeType.INHERIT,
      paramLabel = "KEY",
      description = "Admin API key (default: $" + KEY_ENV + ", else the file data/admin.key).")
  String key;

  @Option(
      names = "--reason",
      scope = ScopeType.INHERIT,
      paramLabel = "TEXT",
      description =
          "Why: kept with the change in the audit trail (at most 256 characters, one line).")
  String reason;

  @Option(names = "--json", scope = ScopeType.INHERIT, description = "Print the response as JSON.")
  boolean json;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      scope = ScopeType.INHERIT,
      description = "Show this help.")
  boolean help;

  /** The options of the {@code veil admin} command that {@code spec} runs under. */
  static AdminOptions of(CommandSpec spec) {
    for (CommandSpec s = spec; s != null; s = s.parent()) {
      for (CommandSpec mixin : s.mixins().values()) {
        if (mixin.userObject() instanceof AdminOptions options) {
          return options;
        }
      }
    }
    throw new IllegalStateException("admin subcommands run only under 'veil admin'");
  }

  String host() {
    return host == null ? DEFAULT_HOST : host;
  }

  int port() {
    return port == null ? DEFAULT_PORT : port;
  }

  /** The {@code --reason}, or empty. */
  String reason() {
    return reason == null ? "" : reason.strip();
  }

  boolean json() {
    return json;
  }

  /** The key from {@code --key}, the environment or the key file, in that order. */
  Optional<String> key() {
    return AdminKeySource.resolve(key, System.getenv(), KEY_FILE);
  }

  static String keySources() {
    return "pass --key, set "
        + KEY_ENV
        + ", or run where ./"
        + KEY_FILE.toString().replace('\\', '/')
        + " exists";
  }
}

package dev.veil.cli;

import dev.veil.cli.map.MapRun;
import dev.veil.cli.map.ServerOptions;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code veil map}: maps a file of identifiers through a running server into a CSV, through the
 * client library's mapping cache (a file beside the output), so that a run can resume and {@code
 * --refresh} can re-map what salt rotations (and, over v3, opt-outs) changed. The work is in {@link
 * MapRun}.
 */
@Command(
    name = "map",
    mixinStandardHelpOptions = true,
    version = Main.VERSION,
    description = {
      "Map emails, phones or their hashes to advertising ids through a running Veil server.",
      "Input: a CSV or one identifier per line. Output: a row per distinct identifier,"
          + " identifier,advertising_id,bucket_id (with the client's secret, over v3:"
          + " identifier,advertising_id,previous_advertising_id,refresh_from).",
      "Resumable: run the same command again after an interruption.",
      "--refresh re-maps the rows whose salt buckets rotated (v3: whose refresh time passed;"
          + " opted-out identities are removed), and rewrites the output."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:ok",
      "1:the server refused a request, or a file could not be read or written",
      "2:usage error",
      "3:cannot reach the server",
      "130:stopped by Ctrl-C (143: by SIGTERM); run the same command again to resume"
    })
public final class MapCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ServerOptions server;

  @Option(
      names = "--in",
      paramLabel = "FILE",
      description = "Identifiers to map: a CSV or one per line.")
  Path in;

  @Option(
      names = "--out",
      paramLabel = "FILE",
      description =
          "CSV to write, a row per distinct identifier in input order (rejected identifiers go"
              + " to FILE.rejected.csv).")
  Path out;

  @Option(
      names = "--cache",
      paramLabel = "FILE",
      description =
          "The mapping cache that holds the output's table and progress (default: the output"
              + " file's name + .veil-cache).")
  Path cache;

  @Option(
      names = "--refresh",
      description =
          "Re-map the rows that salt rotations changed (v3: whose refresh time passed, and"
              + " remove opted-out identities), and rewrite the output.")
  boolean refresh;

  @Option(
      names = "--type",
      paramLabel = "KIND",
      description =
          "Kind of every identifier: email, email_hash, phone or phone_hash (default: from the"
              + " header or each value).")
  String type;

  @Option(
      names = "--column",
      paramLabel = "NAME|N",
      description = "CSV column by header name or number (from 1).")
  String column;

  @Option(
      names = "--hash-locally",
      description = "Send SHA-256 hashes only: emails and phones never leave this machine.")
  boolean hashLocally;

  @Option(
      names = "--batch-size",
      paramLabel = "N",
      description = "Identifiers per request, 1 to 5000 (default 5000).")
  int batchSize = 5000;

  @Option(
      names = "--progress",
      paramLabel = "MODE",
      description =
          "auto (a bar when stderr is a terminal, else lines), bar, lines or none (default auto).")
  String progress = "auto";

  @Option(
      names = "--client-secret",
      paramLabel = "SECRET",
      description =
          "The client's secret, as veil admin client create prints it (default: $"
              + ServerOptions.SECRET_ENV
              + "): map over v3 (refresh times, previous ids, opt-outs found at each refresh)"
              + " instead of v1.")
  String clientSecret;

  @Override
  public Integer call() {
    return new MapRun(spec.commandLine().getErr(), spec.commandLine()::usage, server, settings())
        .run();
  }

  /** The options as parsed. */
  MapRun.Settings settings() {
    return new MapRun.Settings(
        in, out, cache, refresh, type, column, hashLocally, batchSize, progress, clientSecret);
  }

  ServerOptions server() {
    return server;
  }
}

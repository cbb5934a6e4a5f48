package dev.veil.testing;

import dev.veil.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * Runs the {@code veil} command line in-process, exactly as {@link Main#run} does, but with
 * picocli's stdout and stderr captured. The standard streams are left alone: the in-process server
 * logs there, and a command must print only through picocli's writers.
 */
public record CliRun(int exitCode, String out, String err) {
  /** Runs {@code veil <args>} and returns its exit code and what it printed. */
  public static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        new CommandLine(new Main())
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true))
            .execute(args);
    return new CliRun(code, out.toString(), err.toString());
  }
}

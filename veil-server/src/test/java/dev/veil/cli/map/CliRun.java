package dev.veil.cli.map;

import dev.veil.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the {@code veil} command line in-process with picocli's stdout and stderr captured. */
record CliRun(int exitCode, String out, String err) {
  static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = new CommandLine(new Main())
        .setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true))
        .execute(args);
    return new CliRun(code, out.toString(), err.toString());
  }
}

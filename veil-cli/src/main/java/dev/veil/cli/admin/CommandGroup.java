package dev.veil.cli.admin;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** A command that only groups subcommands: run without one, it is a usage error (exit 2). */
public abstract class CommandGroup implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "Missing subcommand");
  }
}

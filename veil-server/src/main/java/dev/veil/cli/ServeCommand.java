package dev.veil.cli;

import picocli.CommandLine.Command;

/** Placeholder so that {@link Main} compiles on this branch; the real command lives on main. */
@Command(name = "serve", description = "Run the Veil service (placeholder on this branch).")
final class ServeCommand implements Runnable {
  @Override
  public void run() {
    throw new UnsupportedOperationException("veil serve is not part of this branch");
  }
}

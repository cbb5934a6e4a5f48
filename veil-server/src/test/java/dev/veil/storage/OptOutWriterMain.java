package dev.veil.storage;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Child process of {@link SqliteDurabilityTest}: records opt-outs {@code 0..count-1} one by one in
 * the embedded store at {@code args[0]} and prints {@code ack <i>} after each record call returns,
 * that is, once the store has acknowledged it as durable.
 */
public final class OptOutWriterMain {
  private OptOutWriterMain() {}

  public static void main(String[] args) {
    String path = args[0];
    int count = Integer.parseInt(args[1]);
    // Unbuffered, so an "ack" line is in the pipe the moment it is printed.
    PrintStream out =
        new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    try (Store store = Stores.open("sqlite:" + path)) {
      out.println("open");
      for (int i = 0; i < count; i++) {
        store.optOuts().record(StoreContractTest.hash(i), Instant.ofEpochMilli(1_000_000L + i));
        out.println("ack " + i);
      }
    }
    out.println("done");
  }
}

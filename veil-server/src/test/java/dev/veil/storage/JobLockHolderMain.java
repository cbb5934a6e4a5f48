package dev.veil.storage;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Child process of {@link PostgresStoreTest}: opens the store at {@code args[0]}, takes the job
 * lock of job {@code args[1]}, prints {@code holding} and keeps it until killed (a node dying
 * mid-job).
 */
public final class JobLockHolderMain {
  private JobLockHolderMain() {}

  public static void main(String[] args) {
    PrintStream out =
        new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    try (Store store = Stores.open(args[0])) {
      store
          .jobLock()
          .runExclusive(
              args[1],
              () -> {
                out.println("holding");
                try {
                  Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                return null;
              });
    }
  }
}

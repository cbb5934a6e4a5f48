package dev.veil.e2e;

import dev.veil.sdk.Identifier;
import dev.veil.sdk.IdentifierBatch;
import dev.veil.sdk.MappingCache;
import dev.veil.sdk.VeilClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A data collector's program, run as a child process by {@link MappingCacheCrashIT}: imports a file
 * of emails into a {@link MappingCache} (resuming from the cache's checkpoint), maps them,
 * refreshes and writes the table as CSV, renamed into place. Arguments: base URL, API key, client
 * secret (or "-" for v1), input file, cache file, output file. The key and secret come as arguments
 * because a test child process has no other channel; the test's keys are throwaway.
 */
public final class CacheImportMain {
  private CacheImportMain() {}

  public static void main(String[] args) throws IOException {
    VeilClient.Builder builder = VeilClient.builder().baseUrl(args[0]).apiKey(args[1]);
    if (!args[2].equals("-")) {
      builder.clientSecret(args[2]);
    }
    Path input = Path.of(args[3]);
    Path output = Path.of(args[5]);
    try (MappingCache cache =
        builder.build().mappingCache(Path.of(args[4])).requestsInFlight(2).build()) {
      long done = cache.checkpoint(input.toString()).orElse(0);
      try (BufferedReader in = Files.newBufferedReader(input, StandardCharsets.UTF_8)) {
        long line = 0;
        IdentifierBatch batch = new IdentifierBatch(500);
        for (String email = in.readLine(); email != null; email = in.readLine()) {
          line++;
          if (line <= done) {
            continue;
          }
          batch.add(Identifier.email(email));
          if (batch.size() == 500) {
            cache.add(batch, input.toString(), line);
            batch.clear();
            cache.mapPending();
          }
        }
        if (!batch.isEmpty()) {
          cache.add(batch, input.toString(), line);
        }
      }
      cache.mapPending();
      cache.refresh();
      Path tmp = output.resolveSibling(output.getFileName() + ".tmp");
      try (OutputStream out = Files.newOutputStream(tmp)) {
        cache.writeCsv(out);
      }
      Files.move(tmp, output, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
  }
}

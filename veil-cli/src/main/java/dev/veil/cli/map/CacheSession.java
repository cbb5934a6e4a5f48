package dev.veil.cli.map;

import dev.veil.sdk.MappingCache;
import dev.veil.sdk.VeilClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The mapping cache of one {@code veil map} run, which the run may have to open again: with another
 * client (one that hashes, for a refresh of identifiers imported with {@code --hash-locally}), or
 * as a new, empty file (an import of another input). The run holds the output's lock throughout.
 * Not thread-safe.
 */
final class CacheSession implements AutoCloseable {
  private final Path file;
  private final MappingCache.Listener listener;
  private MappingCache cache;

  CacheSession(Path file, MappingCache.Listener listener) {
    this.file = file;
    this.listener = listener;
  }

  /**
   * Opens (or creates) the cache for {@code client}'s requests, four of them in flight.
   *
   * @throws java.io.UncheckedIOException if it cannot be opened (in use, not a mapping cache)
   */
  MappingCache open(VeilClient client) {
    cache =
        client
            .mappingCache(file)
            .listener(listener)
            .requestsInFlight(MappingCache.MAX_REQUESTS_IN_FLIGHT)
            .build();
    return cache;
  }

  /** Closes the cache and opens it again for {@code client}. */
  MappingCache reopen(VeilClient client) {
    close();
    return open(client);
  }

  /** Closes the cache, removes its file and opens a new one for {@code client}. */
  MappingCache recreate(VeilClient client) throws IOException {
    close();
    Files.delete(file);
    return open(client);
  }

  @Override
  public void close() {
    if (cache != null) {
      MappingCache c = cache;
      cache = null;
      c.close();
    }
  }
}

package dev.veil.sdk;

/**
 * Told how far a long mapping run has come, after every request; keep it quick. {@link
 * IdentityMapClient#map(java.util.List, ProgressListener)} calls it on the calling thread; a {@link
 * MappingCache} run calls it on a thread of its own (see {@link MappingCache.Listener}).
 */
@FunctionalInterface
public interface ProgressListener {
  /** A listener that ignores everything. */
  ProgressListener NONE = (done, total) -> {};

  /**
   * Reports how far the run has come.
   *
   * @param done identifiers finished so far in this run (mapped or not)
   * @param total identifiers this run will handle
   */
  void progress(long done, long total);
}

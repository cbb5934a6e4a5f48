package dev.veil.sdk;

/**
 * Told how far a long mapping run has come, after every request. Called on the thread that runs
 * the mapping; keep it quick.
 */
@FunctionalInterface
public interface ProgressListener {
  /** A listener that ignores everything. */
  ProgressListener NONE = (done, total) -> { };

  /**
   * @param done identifiers finished so far in this run (mapped or not)
   * @param total identifiers this run will handle
   */
  void progress(long done, long total);
}

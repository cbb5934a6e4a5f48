package dev.veil.common;

/**
 * What a failure says at its root, for one-line messages: libraries wrap the cause that names the
 * problem.
 */
public final class Causes {
  private Causes() {}

  /**
   * The innermost cause of {@code failure} (itself if it has none; a cause that is its own ends the
   * chain).
   */
  public static Throwable root(Throwable failure) {
    Throwable t = failure;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  /** The innermost cause's message, or its class's simple name when it has none. */
  public static String rootMessage(Throwable failure) {
    Throwable t = root(failure);
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }
}

package dev.veil.identity;

/** The outcome of mapping one identifier. */
public sealed interface MapResult {
  /** Mapped: the 32-byte advertising id and the bucket id. */
  @SuppressWarnings("ArrayRecordComponent") // its arrays are never compared
  record Mapped(byte[] advertisingId, String bucketId) implements MapResult {}

  /**
   * Not mapped, with the reason shown to the caller ({@code invalid identifier} or {@code optout}).
   */
  record Unmapped(String reason) implements MapResult {
    public static final Unmapped INVALID = new Unmapped("invalid identifier");
    public static final Unmapped OPTOUT = new Unmapped("optout");
  }
}

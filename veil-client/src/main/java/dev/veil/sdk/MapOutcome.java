package dev.veil.sdk;

import java.util.Objects;

/**
 * What mapping one identifier came to: {@link Mapped} (an advertising id and its salt bucket) or
 * {@link Unmapped} (opted out, or not a valid identifier).
 */
public sealed interface MapOutcome permits MapOutcome.Mapped, MapOutcome.Unmapped {
  /** The identifier as the caller gave it (also when a hash of it was sent). */
  Identifier identifier();

  /**
   * A mapped identifier.
   *
   * @param identifier as given by the caller
   * @param advertisingId standard base64 of 32 bytes (44 characters); changes when the bucket's
   *     salt rotates
   * @param bucketId the salt bucket; fixed for the identity for ever
   */
  record Mapped(Identifier identifier, String advertisingId, String bucketId)
      implements MapOutcome {
    public Mapped {
      Objects.requireNonNull(identifier, "identifier");
      Objects.requireNonNull(advertisingId, "advertisingId");
      Objects.requireNonNull(bucketId, "bucketId");
    }
  }

  /**
   * An identifier without an advertising id.
   *
   * @param identifier as given by the caller
   * @param reason why
   */
  record Unmapped(Identifier identifier, Reason reason) implements MapOutcome {
    public Unmapped {
      Objects.requireNonNull(identifier, "identifier");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why an identifier was not mapped. */
  enum Reason {
    /** The person opted out: drop whatever you hold for them. */
    OPTED_OUT("optout"),
    /** Not an email, phone or hash that normalizes (found here or by the server). */
    INVALID_IDENTIFIER("invalid identifier"),
    /** A reason this client version does not know. */
    OTHER("other");

    private final String wireName;

    Reason(String wireName) {
      this.wireName = wireName;
    }

    /** The server's word for it, e.g. {@code optout}. */
    public String wireName() {
      return wireName;
    }

    /** The reason the server's word names; {@link #OTHER} for an unknown word. */
    public static Reason fromWire(String word) {
      for (Reason r : values()) {
        if (r.wireName.equals(word)) {
          return r;
        }
      }
      return OTHER;
    }
  }
}

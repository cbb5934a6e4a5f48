package dev.veil.sdk;

import java.time.Instant;
import java.util.Objects;

/**
 * An identifier that a {@link MappingCache} does not hold, and why: it did not normalize when it
 * was added, or the server answered that it is invalid or opted out (then its entry was removed).
 *
 * @param identifier as added
 * @param reason why it is not mapped
 * @param at when this was found
 */
public record Rejection(Identifier identifier, MapOutcome.Reason reason, Instant at) {
  public Rejection {
    Objects.requireNonNull(identifier, "identifier");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(at, "at");
  }
}

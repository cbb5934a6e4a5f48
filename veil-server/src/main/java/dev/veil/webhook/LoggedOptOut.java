package dev.veil.webhook;

import java.time.Instant;

/** An opt-out as webhook delivery reads it: its position in the log, its hash and its time. */
@SuppressWarnings("ArrayRecordComponent") // its array is never compared
public record LoggedOptOut(LogPosition position, byte[] firstLevelHash, Instant optedOutAt) {}

package dev.veil.optout;

import java.time.Instant;

/** An opt-out record: the identity's 32-byte first-level hash and when it opted out. */
@SuppressWarnings("ArrayRecordComponent") // its arrays are never compared
public record OptOut(byte[] firstLevelHash, Instant optedOutAt) {}

package dev.veil.optout;

import java.time.Instant;

/** An opt-out record: the identity's 32-byte first-level hash and when it opted out. */
@SuppressWarnings(
    "ArrayRecordComponent") // never compared or hashed: equality of the bytes is not asked of it
public record OptOut(byte[] firstLevelHash, Instant optedOutAt) {}

package dev.veil.optout;

import java.time.Instant;

/** An opt-out record: the identity's 32-byte first-level hash and when it opted out. */
public record OptOut(byte[] firstLevelHash, Instant optedOutAt) {}

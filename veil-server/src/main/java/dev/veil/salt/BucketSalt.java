package dev.veil.salt;

import java.time.Instant;

/**
 * The salt state of one bucket: its current generation (0 for the initial salt, +1 per rotation)
 * and when that salt took effect. The salt value itself is derived from the secret salt seed, the
 * bucket index and the generation, so it is never stored.
 */
public record BucketSalt(int bucketIndex, int generation, Instant effectiveAt) {}

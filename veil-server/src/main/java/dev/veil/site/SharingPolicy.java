package dev.veil.site;

import java.time.Duration;

/**
 * The limits the key endpoints announce to bidders and sharers, who enforce them when they decrypt
 * (UID2's SDKs refuse a token whose lifetime exceeds the announced maximum, or which was created
 * further in the future than the allowed clock skew).
 *
 * @param sharingTokenLifetime how long a token a sharer encrypts lives ({@code
 *     token_expiry_seconds}, and {@code max_sharing_lifetime_seconds} of {@code /v2/key/sharing});
 *     master and site keys live long enough to decrypt such tokens to their end
 * @param bidstreamLifetime the longest lifetime of a token in the bid stream, which is the
 *     advertising token lifetime ({@code max_bidstream_lifetime_seconds})
 * @param allowedClockSkew how far in the future a token's creation time may lie ({@code
 *     allow_clock_skew_seconds})
 */
public record SharingPolicy(
    Duration sharingTokenLifetime, Duration bidstreamLifetime, Duration allowedClockSkew) {}

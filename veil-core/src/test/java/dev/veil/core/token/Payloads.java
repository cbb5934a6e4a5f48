package dev.veil.core.token;

import dev.veil.core.identity.IdentityType;
import java.time.Instant;
import java.util.Arrays;

/** Example payloads for codec tests. */
final class Payloads {
  static final Instant NOW = Instant.parse("2026-03-01T12:00:00.123Z");

  private Payloads() {}

  static AdvertisingTokenPayload advertising(IdentityType type, int siteId) {
    return new AdvertisingTokenPayload(
        type,
        NOW.plusSeconds(72 * 3600),
        NOW,
        new OperatorInfo(1, (byte) 2, 3, 4),
        new PublisherInfo(siteId, 77L, 88),
        1,
        NOW.minusSeconds(3600),
        NOW,
        filled(32, 0x5A));
  }

  static RefreshTokenPayload refresh(IdentityType type) {
    return new RefreshTokenPayload(
        type,
        NOW.plusSeconds(30 * 86_400),
        NOW,
        new OperatorInfo(1, (byte) 2, 3, 4),
        new PublisherInfo(TestKeys.SITE, 77L, 88),
        1,
        NOW.minusSeconds(3600),
        filled(32, 0x3C));
  }

  static byte[] filled(int length, int value) {
    byte[] bytes = new byte[length];
    Arrays.fill(bytes, (byte) value);
    return bytes;
  }
}

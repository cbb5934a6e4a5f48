package dev.veil.core.token;

import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** A fixed key ring for codec tests: two keys per keyset, site keysets 5 and 6. */
final class TestKeys {
  static final int SITE = 5;
  static final int OTHER_SITE = 6;

  static final EncryptionKey MASTER = key(101, EncryptionKey.MASTER_SITE_ID);
  static final EncryptionKey MASTER_2 = key(102, EncryptionKey.MASTER_SITE_ID);
  static final EncryptionKey SITE_KEY = key(201, SITE);
  static final EncryptionKey SITE_KEY_2 = key(202, SITE);
  static final EncryptionKey OTHER_SITE_KEY = key(203, OTHER_SITE);
  static final EncryptionKey REFRESH = key(301, EncryptionKey.REFRESH_SITE_ID);
  static final EncryptionKey REFRESH_2 = key(302, EncryptionKey.REFRESH_SITE_ID);

  private static final Map<Integer, EncryptionKey> BY_ID =
      Stream.of(MASTER, MASTER_2, SITE_KEY, SITE_KEY_2, OTHER_SITE_KEY, REFRESH, REFRESH_2)
          .collect(Collectors.toUnmodifiableMap(EncryptionKey::id, Function.identity()));

  /** Knows every key above. */
  static final KeyLookup ALL = BY_ID::get;

  private TestKeys() {}

  static EncryptionKey siteKeyFor(int siteId) {
    return siteId == SITE ? SITE_KEY : OTHER_SITE_KEY;
  }

  /** A lookup that knows every key except {@code missing}. */
  static KeyLookup allExcept(int missing) {
    return id -> id == missing ? null : BY_ID.get(id);
  }

  /** A lookup where {@code id} resolves to {@code replacement} instead. */
  static KeyLookup replacing(int id, EncryptionKey replacement) {
    return requested -> requested == id ? replacement : BY_ID.get(requested);
  }

  static EncryptionKey key(int id, int siteId) {
    byte[] secret = new byte[32];
    Arrays.fill(secret, (byte) id);
    secret[0] = (byte) siteId;
    Instant created = Instant.parse("2026-01-01T00:00:00Z");
    return new EncryptionKey(
        id, siteId, created, created, created.plusSeconds(86_400 * 30), secret);
  }
}

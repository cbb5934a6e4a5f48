package dev.veil.client;

import java.security.MessageDigest;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Checks an {@code Authorization} header value ({@code Bearer <key>}, the word matched
 * case-insensitively) against the current {@link ClientRegistry}.
 *
 * <p>Cost is the same whatever the number of clients (one map lookup by the key's public id) and
 * the same for "right key id, wrong secret", "unknown id" and a random string: every path hashes
 * the presented secret once and compares digests with {@link MessageDigest#isEqual}. Thread-safe;
 * no I/O.
 */
public final class ApiKeyAuthenticator {
  private static final String BEARER = "bearer ";
  private static final ApiKey DUMMY_KEY =
      ApiKey.parse("vk1.AAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
  private static final ApiKeyDigest DUMMY_DIGEST = new ApiKeyDigest("", new byte[16], new byte[32]);

  private final Supplier<ClientRegistry> registry;

  public ApiKeyAuthenticator(Supplier<ClientRegistry> registry) {
    this.registry = registry;
  }

  /** The enabled client owning the presented key, if the header carries a valid one. */
  public Optional<ApiClient> authenticate(String authorizationHeader) {
    ApiKey key = parseHeader(authorizationHeader);
    ApiClient client = key == null ? null : registry.get().byKeyId(key.keyId());
    ApiKeyDigest digest = client == null ? DUMMY_DIGEST : client.key();
    byte[] presented = (key == null ? DUMMY_KEY : key).hashWith(digest.salt());
    boolean match = MessageDigest.isEqual(presented, digest.hash());
    if (client == null || !match || !client.enabled()) {
      return Optional.empty();
    }
    return Optional.of(client);
  }

  /**
   * The key after {@code Bearer }, surrounding whitespace ignored (as {@link String#trim()} does).
   */
  private static ApiKey parseHeader(String header) {
    if (header == null
        || header.length() <= BEARER.length()
        || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return null;
    }
    int from = BEARER.length();
    int to = header.length();
    while (from < to && header.charAt(from) <= ' ') {
      from++;
    }
    while (to > from && header.charAt(to - 1) <= ' ') {
      to--;
    }
    return ApiKey.parse(header, from, to);
  }
}

package dev.veil.token;

import dev.veil.common.ApiProfile;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.identity.IdentityMapper;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The reserved test identities of docs/spec.md 1.7 and 1.10: which identities validate, which are
 * always treated as opted out, and which end their refresh chain. Refresh tokens carry only the
 * first-level hash, so refresh checks compare first-level hashes computed once at start.
 */
public final class TestIdentities {
  private final List<IdentityHash> validating = new ArrayList<>();
  private final List<byte[]> alwaysOptedOut = new ArrayList<>();
  private final List<byte[]> optedOutOnRefresh = new ArrayList<>();

  /**
   * @param validateEmail the configured test address ({@code validate@example.com} by default)
   */
  public TestIdentities(ApiProfile profile, String validateEmail, IdentityMapper mapper) {
    List<IdentityHash> validate =
        List.of(
            IdentityHash.parse(IdentityInput.EMAIL, validateEmail),
            IdentityHash.parse(IdentityInput.EMAIL, "validate@email.com"),
            IdentityHash.parse(IdentityInput.PHONE, "+12345678901"));
    validating.addAll(validate);
    if (profile == ApiProfile.UID2) {
      alwaysOptedOut.add(
          mapper.firstLevelHash(IdentityHash.parse(IdentityInput.EMAIL, "optout@example.com")));
      alwaysOptedOut.add(
          mapper.firstLevelHash(IdentityHash.parse(IdentityInput.PHONE, "+00000000000")));
      optedOutOnRefresh.add(
          mapper.firstLevelHash(
              IdentityHash.parse(IdentityInput.EMAIL, "refresh-optout@example.com")));
      optedOutOnRefresh.add(
          mapper.firstLevelHash(IdentityHash.parse(IdentityInput.PHONE, "+00000000002")));
    } else {
      for (IdentityHash id : validate) {
        optedOutOnRefresh.add(mapper.firstLevelHash(id));
      }
    }
  }

  /** Whether validate may answer true for this identity. */
  public boolean validates(IdentityHash identity) {
    for (IdentityHash id : validating) {
      if (id.equals(identity)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the identity is treated as opted out everywhere (UID2 profile's optout identities). */
  public boolean isAlwaysOptedOut(byte[] firstLevelHash) {
    return contains(alwaysOptedOut, firstLevelHash);
  }

  /** Whether a refresh for this identity answers optout. */
  public boolean endsChainOnRefresh(byte[] firstLevelHash) {
    return contains(optedOutOnRefresh, firstLevelHash) || contains(alwaysOptedOut, firstLevelHash);
  }

  private static boolean contains(List<byte[]> list, byte[] flh) {
    for (byte[] b : list) {
      if (Arrays.equals(b, flh)) {
        return true;
      }
    }
    return false;
  }
}

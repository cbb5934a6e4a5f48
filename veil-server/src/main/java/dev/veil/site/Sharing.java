package dev.veil.site;

import java.util.Set;

/**
 * The sharing permission of a site's keyset: besides the site itself, exactly the sites listed in
 * {@code allowedSites} and every site of a type in {@code allowedTypes} may decrypt tokens made
 * under it. Both may be empty (nobody else may). Immutable.
 */
public record Sharing(Set<Integer> allowedSites, Set<ParticipantType> allowedTypes) {
  public Sharing {
    allowedSites = Set.copyOf(allowedSites);
    allowedTypes = Set.copyOf(allowedTypes);
  }

  /** Whether a site {@code siteId} of types {@code types} is allowed. */
  public boolean allows(int siteId, Set<ParticipantType> types) {
    if (allowedSites.contains(siteId)) {
      return true;
    }
    for (ParticipantType type : types) {
      if (allowedTypes.contains(type)) {
        return true;
      }
    }
    return false;
  }
}

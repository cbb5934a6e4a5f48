package dev.veil.site;

import dev.veil.client.ApiClient;
import dev.veil.client.Role;
import dev.veil.core.token.EncryptionKey;
import dev.veil.key.KeyRing;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Which keys a caller of the key endpoints receives (docs/spec.md 3.1), as UID2 decides it:
 *
 * <ul>
 *   <li>every unexpired key of the master keyset;
 *   <li>every unexpired key of the caller's own site's keyset;
 *   <li>the keys of another site's keyset if that site's {@link Sharing} permission names the
 *       caller's site or one of its {@linkplain Site#types() types}; a site without a permission
 *       (the default) gives its keys to bidders ({@link Role#ID_READER}) and to no one else;
 *   <li>never a refresh key.
 * </ul>
 *
 * Stateless; the snapshots it reads are immutable.
 */
public final class KeyAccess {
  private KeyAccess() {}

  /** The keys {@code caller} may receive at {@code now}, ordered by key id. */
  public static List<EncryptionKey> keysFor(
      ApiClient caller, KeyRing ring, SiteDirectory sites, Instant now) {
    List<EncryptionKey> keys = new ArrayList<>();
    Site callerSite = sites.site(caller.siteId());
    boolean bidder = caller.has(Role.ID_READER);
    for (EncryptionKey key : ring.bidderKeys(now)) {
      if (mayRead(caller.siteId(), callerSite, bidder, key.siteId(), sites)) {
        keys.add(key);
      }
    }
    return keys;
  }

  /** Whether a caller of site {@code callerSiteId} may read the keyset of {@code keysetSiteId}. */
  static boolean mayRead(
      int callerSiteId, Site callerSite, boolean bidder, int keysetSiteId, SiteDirectory sites) {
    if (keysetSiteId == EncryptionKey.MASTER_SITE_ID || keysetSiteId == callerSiteId) {
      return true;
    }
    if (keysetSiteId == EncryptionKey.REFRESH_SITE_ID) {
      return false;
    }
    return sites
        .site(keysetSiteId)
        .sharing()
        .map(sharing -> sharing.allows(callerSiteId, callerSite.types()))
        .orElse(bidder);
  }
}

package dev.veil.site;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An immutable snapshot of every site an administrator has set something for, published by {@link
 * SiteService} through an atomic reference. Requests read it without locks; a site never set reads
 * as {@link Site#unset}.
 */
public final class SiteDirectory {
  private static final SiteDirectory EMPTY = new SiteDirectory(Map.of());

  private final Map<Integer, Site> bySiteId;

  private SiteDirectory(Map<Integer, Site> bySiteId) {
    this.bySiteId = Map.copyOf(bySiteId);
  }

  public static SiteDirectory empty() {
    return EMPTY;
  }

  /** A new directory holding this one's sites plus {@code changed} (same site id replaces). */
  public SiteDirectory with(Collection<Site> changed) {
    if (changed.isEmpty()) {
      return this;
    }
    Map<Integer, Site> next = new HashMap<>(bySiteId);
    for (Site site : changed) {
      next.put(site.siteId(), site);
    }
    return new SiteDirectory(next);
  }

  /** The site's settings, or {@link Site#unset} if none were ever set. */
  public Site site(int siteId) {
    Site site = bySiteId.get(siteId);
    return site == null ? Site.unset(siteId) : site;
  }

  /** Every site with settings, ordered by site id. */
  public List<Site> all() {
    return bySiteId.values().stream().sorted(Comparator.comparingInt(Site::siteId)).toList();
  }
}

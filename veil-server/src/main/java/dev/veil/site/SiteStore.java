package dev.veil.site;

import dev.veil.common.ChangeFeed;
import dev.veil.common.Versioned;

/**
 * Durable storage of sites; its {@link ChangeFeed} delivers the latest state of every site written
 * by any node. Thread-safe; writes are durable on return.
 */
public interface SiteStore extends ChangeFeed<Site> {
  /** Inserts the site, or replaces the stored one with the same site id, with a new seq. */
  Versioned<Site> put(Site site);
}

package dev.veil.site;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What Veil knows of one site beyond its clients: the domain and app names its tokens may be used
 * on ({@code site_data} of the key endpoints), its participant types, and its keyset's sharing
 * permission. Immutable.
 *
 * @param siteId positive
 * @param domainNames lower case, sorted, distinct
 * @param types the kinds of participant the site is (a sharing permission may name types)
 * @param sharing empty: the default (bidders receive the keyset's keys, other sharers do not);
 *     present: exactly the sites and types it names may
 * @param updated when an administrator last changed the site
 */
public record Site(
    int siteId,
    List<String> domainNames,
    Set<ParticipantType> types,
    Optional<Sharing> sharing,
    Instant updated) {

  public Site {
    domainNames = List.copyOf(domainNames);
    types = Set.copyOf(types);
  }

  /** A site nothing was set for: no names, no types, the default sharing. */
  public static Site unset(int siteId) {
    return new Site(siteId, List.of(), Set.of(), Optional.empty(), Instant.EPOCH);
  }
}

package dev.veil.site;

import dev.veil.common.ChangeCursor;
import dev.veil.common.Deadline;
import dev.veil.common.VeilException;
import dev.veil.common.Versioned;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Sites' names, types and sharing permissions: validates and writes an administrator's changes,
 * publishes the {@link SiteDirectory} that the key endpoints read, and follows the changes other
 * nodes write. Writes and {@link #catchUp()} are serialized by one lock; a write is durable before
 * it is published. A request's write waits for the lock no longer than its {@link Deadline}.
 */
public final class SiteService {
  /** The most domain and app names one site may have. */
  public static final int MAX_DOMAIN_NAMES = 1_000;

  /** The most sites one sharing permission may list. */
  public static final int MAX_ALLOWED_SITES = 10_000;

  /**
   * A domain name (labels of letters, digits and hyphens, joined by dots) or an app name (an
   * Android package, an iOS bundle id or a numeric store id): letters, digits, '.', '-', '_'.
   */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9._-]{0,251}[a-z0-9])?");

  private final SiteStore store;
  private final Clock clock;
  private final AtomicReference<SiteDirectory> directory =
      new AtomicReference<>(SiteDirectory.empty());
  private final ReentrantLock lock = new ReentrantLock();
  private ChangeCursor cursor = ChangeCursor.START;

  public SiteService(SiteStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /** The current snapshot. */
  public SiteDirectory directory() {
    return directory.get();
  }

  /**
   * Sets what is given of a site's domain names and types; what is empty stays as it is.
   *
   * @throws VeilException {@code CLIENT_ERROR} naming the first invalid value
   */
  public Site update(
      int siteId, Optional<Collection<String>> domainNames, Optional<Set<ParticipantType>> types) {
    checkSiteId(siteId);
    Optional<List<String>> names = domainNames.map(SiteService::normalizedNames);
    return locked(
        () -> {
          Site current = directory.get().site(siteId);
          return save(
              new Site(
                  siteId,
                  names.orElse(current.domainNames()),
                  types.orElse(current.types()),
                  current.sharing(),
                  clock.instant()));
        });
  }

  /**
   * Sets a site's sharing permission; empty returns it to the default (bidders may read the site's
   * keyset, other sharers may not).
   *
   * @throws VeilException {@code CLIENT_ERROR} naming the first invalid value
   */
  public Site setSharing(int siteId, Optional<Sharing> sharing) {
    checkSiteId(siteId);
    sharing.ifPresent(SiteService::checkSharing);
    return locked(
        () -> {
          Site current = directory.get().site(siteId);
          return save(
              new Site(siteId, current.domainNames(), current.types(), sharing, clock.instant()));
        });
  }

  /** Loads the sites written since the last call (by this or another node). */
  public void catchUp() {
    locked(this::readChanges);
  }

  private Void readChanges() {
    List<Site> changed = new ArrayList<>();
    cursor = store.forEachChange(cursor, v -> changed.add(v.value()));
    directory.set(directory.get().with(changed));
    return null;
  }

  private Site save(Site site) {
    Versioned<Site> stored = store.put(site);
    directory.set(directory.get().with(List.of(stored.value())));
    return stored.value();
  }

  private static void checkSiteId(int siteId) {
    if (siteId <= 0) {
      throw VeilException.clientError("site id must be positive");
    }
  }

  private static void checkSharing(Sharing sharing) {
    if (sharing.allowedSites().size() > MAX_ALLOWED_SITES) {
      throw VeilException.clientError(
          "a sharing permission lists at most " + MAX_ALLOWED_SITES + " sites");
    }
    for (int allowed : sharing.allowedSites()) {
      if (allowed <= 0) {
        throw VeilException.clientError("allowed site ids must be positive, not " + allowed);
      }
    }
  }

  /** Lower case, distinct, sorted; refuses a name that is neither a domain nor an app name. */
  static List<String> normalizedNames(Collection<String> names) {
    if (names.size() > MAX_DOMAIN_NAMES) {
      throw VeilException.clientError(
          "a site has at most " + MAX_DOMAIN_NAMES + " domain and app names");
    }
    TreeSet<String> normalized = new TreeSet<>();
    for (String name : names) {
      String n = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
      if (!NAME.matcher(n).matches() || n.contains("..")) {
        throw VeilException.clientError(
            "invalid domain or app name '"
                + printable(n)
                + "': expected a host name such as example.com, or an app id such as"
                + " com.example.app or 123456789");
      }
      normalized.add(n);
    }
    return List.copyOf(normalized);
  }

  /** At most 64 characters of {@code text}, with anything but printable ASCII as '?'. */
  private static String printable(String text) {
    StringBuilder b = new StringBuilder();
    text.codePoints().limit(64).forEach(c -> b.append(c >= 0x20 && c < 0x7f ? (char) c : '?'));
    return b.toString();
  }

  private <T> T locked(Supplier<T> work) {
    Deadline.lock(lock, "the site directory's lock");
    try {
      return work.get();
    } finally {
      lock.unlock();
    }
  }
}

package dev.veil.client;

import dev.veil.common.BlankText;
import dev.veil.common.ChangeCursor;
import dev.veil.common.Deadline;
import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import dev.veil.common.Versioned;
import dev.veil.key.KeyService;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * API clients: creation (the key is returned once and only its digest is stored; the secret is
 * stored and returned, to be shown once), enabling and disabling, key and secret rotation, and the
 * {@link ClientRegistry} snapshot that authentication reads. Writes and {@link #catchUp()} are
 * serialized by one lock, and writes are durable before they are published. A request's write waits
 * for the lock no longer than its {@link Deadline} (the catch-up may hold it while the store does
 * not answer).
 */
public final class ClientService {
  /** In Unicode code points, as deduction titles are counted. */
  static final int MAX_NAME_LENGTH = 128;

  private final ClientStore store;
  private final KeyService keys;
  private final Clock clock;
  private final SecureRandom random;
  private final AtomicReference<ClientRegistry> registry =
      new AtomicReference<>(ClientRegistry.empty());
  private final ReentrantLock lock = new ReentrantLock();
  private ChangeCursor cursor = ChangeCursor.START;

  public ClientService(ClientStore store, KeyService keys, Clock clock, SecureRandom random) {
    this.store = store;
    this.keys = keys;
    this.clock = clock;
    this.random = random;
  }

  public ClientRegistry registry() {
    return registry.get();
  }

  /** A new client and its API key, which is shown only now. */
  public record CreatedClient(ApiClient client, ApiKey key) {}

  /**
   * Creates an enabled client named {@code name} without its leading and trailing white space: 1 to
   * {@value #MAX_NAME_LENGTH} code points, not {@linkplain BlankText blank}. A {@code siteId} of 0
   * gives the client a site id of its own, shared with no other client or keyset (its id when that
   * is free, see {@link ClientStore#insert}); the site's keyset exists before this returns.
   */
  public CreatedClient create(String name, int siteId, Set<Role> roles) {
    String trimmed = name == null ? "" : name.strip();
    if (BlankText.isBlank(trimmed)) {
      throw VeilException.clientError("name must not be blank");
    }
    if (trimmed.codePointCount(0, trimmed.length()) > MAX_NAME_LENGTH) {
      throw VeilException.clientError("name must be at most " + MAX_NAME_LENGTH + " characters");
    }
    if (siteId < 0) {
      throw VeilException.clientError("site id must be positive, or 0 to assign one");
    }
    if (roles.isEmpty()) {
      throw VeilException.clientError("at least one role is required");
    }
    return locked(
        () -> {
          ApiKey key = ApiKey.generate(random);
          Versioned<ApiClient> stored =
              store.insert(
                  trimmed,
                  siteId,
                  roles,
                  true,
                  clock.instant(),
                  key.digest(random),
                  ClientSecret.generate(random));
          keys.ensureKeysets(List.of(stored.value().siteId()));
          publish(stored.value());
          return new CreatedClient(stored.value(), key);
        });
  }

  /**
   * {@link #create} by an operator, who may grant every public API role but only the operator roles
   * it holds itself (only an {@code ADMIN} client may grant {@code ADMIN}).
   *
   * @throws VeilException {@code UNAUTHORIZED} for an operator role the caller does not hold
   */
  public CreatedClient create(ApiClient caller, String name, int siteId, Set<Role> roles) {
    for (Role role : roles) {
      if (role.isOperatorRole() && !caller.holds(role)) {
        throw new VeilException(
            ErrorCode.UNAUTHORIZED,
            "roles: only a client that holds "
                + role
                + " may grant it"
                + (role == Role.ADMIN ? "" : " (ADMIN holds every operator role)"));
      }
    }
    return create(name, siteId, roles);
  }

  /** {@link #setEnabled} by an operator, who must {@linkplain #checkManages manage} the client. */
  public ApiClient setEnabled(ApiClient caller, long clientId, boolean enabled) {
    return locked(
        () -> {
          checkManages(caller, clientId);
          return setEnabled(clientId, enabled);
        });
  }

  /** {@link #rotateKey} by an operator, who must {@linkplain #checkManages manage} the client. */
  public CreatedClient rotateKey(ApiClient caller, long clientId) {
    return locked(
        () -> {
          checkManages(caller, clientId);
          return rotateKey(clientId);
        });
  }

  /**
   * {@link #rotateSecret} by an operator, who must {@linkplain #checkManages manage} the client.
   */
  public ApiClient rotateSecret(ApiClient caller, long clientId) {
    return locked(
        () -> {
          checkManages(caller, clientId);
          return rotateSecret(clientId);
        });
  }

  /**
   * Refuses an operator's change to a client that holds an operator role the operator does not:
   * disabling it, or taking over its key or secret, would act beyond the operator's own rights.
   *
   * <p>Called with the lock held.
   *
   * @throws VeilException {@code NOT_FOUND} for an unknown client, {@code UNAUTHORIZED} otherwise
   */
  private void checkManages(ApiClient caller, long clientId) {
    ApiClient target = existing(clientId);
    for (Role role : target.roles()) {
      if (role.isOperatorRole() && !caller.holds(role)) {
        throw new VeilException(
            ErrorCode.UNAUTHORIZED,
            "client "
                + clientId
                + " holds "
                + role
                + ", which this API key does not: only a client that holds every operator role"
                + " of another may disable it or rotate its key or secret");
      }
    }
  }

  /**
   * Enables or disables a client; disabled keys are refused at once on this node.
   *
   * @throws VeilException {@code CLIENT_ERROR} when this would disable the last enabled {@code
   *     ADMIN} client (nobody could administer the service any more); create another first
   */
  public ApiClient setEnabled(long clientId, boolean enabled) {
    return locked(
        () -> {
          ApiClient current = existing(clientId);
          if (!enabled
              && current.enabled()
              && current.roles().contains(Role.ADMIN)
              && enabledAdmins() == 1) {
            throw VeilException.clientError(
                "client "
                    + clientId
                    + " is the last enabled ADMIN client; create another ADMIN client before"
                    + " disabling it");
          }
          ApiClient next =
              new ApiClient(
                  current.id(),
                  current.name(),
                  current.siteId(),
                  current.roles(),
                  enabled,
                  current.created(),
                  current.key(),
                  current.secret());
          return save(next);
        });
  }

  /** Replaces a client's key; the old key stops working at once on this node. */
  public CreatedClient rotateKey(long clientId) {
    return locked(
        () -> {
          ApiClient current = existing(clientId);
          ApiKey key = ApiKey.generate(random);
          ApiClient next =
              new ApiClient(
                  current.id(),
                  current.name(),
                  current.siteId(),
                  current.roles(),
                  current.enabled(),
                  current.created(),
                  key.digest(random),
                  current.secret());
          return new CreatedClient(save(next), key);
        });
  }

  /**
   * Replaces a client's secret; requests sealed with the old one are refused at once on this node.
   * The new secret is in the returned client, to be shown once.
   */
  public ApiClient rotateSecret(long clientId) {
    return locked(() -> save(withSecret(existing(clientId), ClientSecret.generate(random))));
  }

  /**
   * Gives every client without a secret (stored by a release without secrets) a new one, and
   * returns how many it gave. Their keys do not change. Run once at start, by one node at a time.
   */
  public int ensureSecrets() {
    return locked(
        () -> {
          readChanges();
          int given = 0;
          for (ApiClient client : registry.get().all()) {
            if (client.secret() == null) {
              save(withSecret(client, ClientSecret.generate(random)));
              given++;
            }
          }
          return given;
        });
  }

  private static ApiClient withSecret(ApiClient c, ClientSecret secret) {
    return new ApiClient(
        c.id(), c.name(), c.siteId(), c.roles(), c.enabled(), c.created(), c.key(), secret);
  }

  /** Number of enabled clients with the {@code ADMIN} role known to this node. */
  public int enabledAdmins() {
    return (int)
        registry.get().all().stream()
            .filter(c -> c.enabled() && c.roles().contains(Role.ADMIN))
            .count();
  }

  public List<ApiClient> list() {
    return registry.get().all();
  }

  /**
   * Loads clients written since the last call (by this or another node). Each delivered row is the
   * client's state as of a read later than everything applied before, so applying it never goes
   * back in time.
   */
  public void catchUp() {
    locked(this::readChanges);
  }

  private Void readChanges() {
    List<ApiClient> clients = new ArrayList<>();
    cursor = store.forEachChange(cursor, v -> clients.add(v.value()));
    registry.set(registry.get().with(clients));
    return null;
  }

  private <T> T locked(Supplier<T> work) {
    Deadline.lock(lock, "the client registry's lock");
    try {
      return work.get();
    } finally {
      lock.unlock();
    }
  }

  private ApiClient existing(long clientId) {
    readChanges();
    ApiClient c = registry.get().byId(clientId);
    if (c == null) {
      throw new VeilException(ErrorCode.NOT_FOUND, "no client with id " + clientId);
    }
    return c;
  }

  private ApiClient save(ApiClient next) {
    ApiClient stored =
        store
            .update(next)
            .orElseThrow(
                () -> new VeilException(ErrorCode.NOT_FOUND, "no client with id " + next.id()))
            .value();
    publish(stored);
    return stored;
  }

  private void publish(ApiClient client) {
    registry.set(registry.get().with(List.of(client)));
  }
}

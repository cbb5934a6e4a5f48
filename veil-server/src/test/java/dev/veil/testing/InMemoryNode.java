package dev.veil.testing;

import dev.veil.client.ClientService;
import dev.veil.client.Role;
import dev.veil.common.ChangeCursor;
import dev.veil.config.VeilConfig;
import dev.veil.core.token.EncryptionKey;
import dev.veil.server.ServiceGraph;
import dev.veil.server.Services;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One node's domain services, wired by {@link ServiceGraph} exactly as the server wires them, over
 * {@link InMemoryStores} and a {@link MutableClock}, and marked loaded. No listeners: {@code
 * dev.veil.http.testing.TestNode} and {@link RunningAdminServer} put one in front.
 *
 * <p>The store starts empty, so the graph bootstraps the admin client (id 1, its own site 1, named
 * {@value #ADMIN_NAME}) whose key is {@link #adminKey()}; clients a test creates come after it.
 */
public final class InMemoryNode {
  /** The name {@link ServiceGraph} gives the admin client it bootstraps. */
  public static final String ADMIN_NAME = "admin";

  private final MutableClock clock;
  private final InMemoryStores store = new InMemoryStores();
  private final Services services;
  private final String adminKey;

  /** A node whose clock starts at {@code start}, on {@code config} (see {@link TestConfigs}). */
  public InMemoryNode(Instant start, VeilConfig config) {
    this.clock = new MutableClock(start);
    ServiceGraph.Built built = ServiceGraph.build(config, clock, store);
    this.services = built.services();
    this.adminKey = built.bootstrapAdminKey().orElseThrow();
    services.readiness().markLoaded();
  }

  public Services services() {
    return services;
  }

  public MutableClock clock() {
    return clock;
  }

  public InMemoryStores store() {
    return store;
  }

  /** The key of the bootstrapped admin client. */
  public String adminKey() {
    return adminKey;
  }

  /** A new enabled client named {@code name} with its own site and {@code roles}. */
  public ClientService.CreatedClient newClient(String name, Role... roles) {
    return services.clients().create(name, 0, Set.of(roles));
  }

  /**
   * A new enabled client named {@code name} with its own site and {@code roles}; returns its API
   * key.
   */
  public String newClientKey(String name, Role... roles) {
    return newClient(name, roles).key().reveal();
  }

  /** Every key with its secret, as stored (to prove that no secret leaves the server). */
  public List<EncryptionKey> keyMaterial() {
    List<EncryptionKey> keys = new ArrayList<>();
    store.keys().forEachChange(ChangeCursor.START, v -> keys.add(v.value()));
    return keys;
  }
}

package dev.veil.demo;

import dev.veil.client.ApiClient;
import dev.veil.client.ClientService;
import dev.veil.client.Role;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's API clients: the publisher's, named {@value #NAME}, role GENERATOR only, and the
 * pretend bidder's, named {@value #BIDDER_NAME}, role ID_READER only. Keys are stored only as
 * digests, so each start gives an existing client a new key (or creates the client once) instead of
 * adding a client per start. The keys stay in the demo's server side.
 */
final class DemoAccount {
  static final String NAME = "demo-publisher";
  static final String BIDDER_NAME = "demo-bidder";
  private static final Logger LOG = LoggerFactory.getLogger(DemoAccount.class);

  private DemoAccount() {}

  /** A working GENERATOR key for the demo publisher (a blocking store write). */
  static String apiKey(ClientService clients) {
    return apiKey(clients, NAME, Role.GENERATOR);
  }

  /** A working ID_READER key for the demo's bidder (a blocking store write). */
  static String bidderKey(ClientService clients) {
    return apiKey(clients, BIDDER_NAME, Role.ID_READER);
  }

  private static String apiKey(ClientService clients, String name, Role role) {
    clients.catchUp();
    Optional<ApiClient> existing =
        clients.list().stream()
            .filter(c -> c.name().equals(name) && c.roles().equals(Set.of(role)))
            .findFirst();
    ClientService.CreatedClient client;
    if (existing.isPresent()) {
      client = clients.rotateKey(existing.get().id());
      if (!client.client().enabled()) {
        clients.setEnabled(client.client().id(), true);
      }
    } else {
      client = clients.create(name, 0, Set.of(role));
    }
    LOG.info("event=demo_client_ready client_id={} role={}", client.client().id(), role);
    return client.key().reveal();
  }
}

package dev.veil.demo;

import dev.veil.client.ApiClient;
import dev.veil.client.ClientService;
import dev.veil.client.Role;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo publisher's API client: named {@value #NAME}, role GENERATOR only. Keys are stored only as
 * digests, so each start gives the existing client a new key (or creates the client once) instead
 * of adding a client per start. The key stays in the demo's server side.
 */
final class DemoAccount {
  static final String NAME = "demo-publisher";
  private static final Logger LOG = LoggerFactory.getLogger(DemoAccount.class);

  private DemoAccount() {}

  /** A working GENERATOR key for the demo (a blocking store write). */
  static String apiKey(ClientService clients) {
    clients.catchUp();
    Optional<ApiClient> existing = clients.list().stream()
        .filter(c -> c.name().equals(NAME) && c.roles().equals(Set.of(Role.GENERATOR)))
        .findFirst();
    ClientService.CreatedClient client;
    if (existing.isPresent()) {
      client = clients.rotateKey(existing.get().id());
      if (!client.client().enabled()) {
        clients.setEnabled(client.client().id(), true);
      }
    } else {
      client = clients.create(NAME, 0, Set.of(Role.GENERATOR));
    }
    LOG.info("event=demo_client_ready client_id={}", client.client().id());
    return client.key().reveal();
  }
}

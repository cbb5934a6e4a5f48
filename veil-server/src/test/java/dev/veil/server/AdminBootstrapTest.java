package dev.veil.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.ApiClient;
import dev.veil.client.ClientService;
import dev.veil.client.Role;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import dev.veil.testing.TestConfigs;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The admin key of docs/spec.md 0: created on an empty store, and again only when no ADMIN client
 * is enabled.
 */
class AdminBootstrapTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2025-03-01T12:00:00Z"));
  private final InMemoryStores store = new InMemoryStores();

  @Test
  void emptyStore_bootstrapsOneAdmin_andARestartDoesNot() {
    ServiceGraph.Built first = ServiceGraph.build(TestConfigs.config(), clock, store);
    ServiceGraph.Built second = ServiceGraph.build(TestConfigs.config(), clock, store);

    assertThat(first.bootstrapAdminKey()).isPresent();
    assertThat(second.bootstrapAdminKey()).isEmpty();
    assertThat(second.services().clients().enabledAdmins()).isEqualTo(1);
  }

  @Test
  void everyAdminDisabledByHand_theNextStartBootstrapsANewOne() {
    ServiceGraph.Built first = ServiceGraph.build(TestConfigs.config(), clock, store);
    ApiClient admin = first.services().clients().list().get(0);
    // An operator edited the row (the API refuses to disable the last enabled admin).
    store
        .clients()
        .update(
            new ApiClient(
                admin.id(),
                admin.name(),
                admin.siteId(),
                admin.roles(),
                false,
                admin.created(),
                admin.key(),
                admin.secret()));

    ServiceGraph.Built restarted = ServiceGraph.build(TestConfigs.config(), clock, store);

    assertThat(restarted.bootstrapAdminKey()).isPresent();
    assertThat(restarted.services().clients().list())
        .filteredOn(c -> c.enabled() && c.roles().contains(Role.ADMIN))
        .hasSize(1)
        .allSatisfy(c -> assertThat(c.id()).isNotEqualTo(admin.id()));
  }

  @Test
  void clientsWithoutASecret_getOneAtTheNextStart_andKeepTheirKeys() {
    ServiceGraph.Built first = ServiceGraph.build(TestConfigs.config(), clock, store);
    ClientService.CreatedClient mapper =
        first.services().clients().create("mapper", 0, Set.of(Role.MAPPER));
    ApiClient before = mapper.client();
    // As a release without secrets stored it.
    store
        .clients()
        .update(
            new ApiClient(
                before.id(),
                before.name(),
                before.siteId(),
                before.roles(),
                before.enabled(),
                before.created(),
                before.key(),
                null));

    ServiceGraph.Built restarted = ServiceGraph.build(TestConfigs.config(), clock, store);

    ApiClient after = restarted.services().clients().registry().byId(before.id());
    assertThat(after.secret()).isNotNull().isNotEqualTo(before.secret());
    assertThat(after.key()).usingRecursiveComparison().isEqualTo(before.key());
    assertThat(restarted.services().authenticator().authenticate("Bearer " + mapper.key().reveal()))
        .isPresent();
    assertThat(restarted.services().clients().list())
        .allSatisfy(c -> assertThat(c.secret()).isNotNull());
  }
}

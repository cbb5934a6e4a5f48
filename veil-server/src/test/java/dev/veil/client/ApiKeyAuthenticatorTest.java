package dev.veil.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.common.VeilException;
import dev.veil.key.KeyPolicy;
import dev.veil.key.KeyService;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ApiKeyAuthenticatorTest {
  private final MutableClock clock = MutableClock.at("2026-03-01T00:00:00Z");
  private final InMemoryStores stores = new InMemoryStores();
  private final KeyService keys =
      new KeyService(
          stores.keys(),
          new KeyPolicy(
              Duration.ofDays(1), Duration.ofHours(1), Duration.ofHours(72), Duration.ofDays(30)),
          clock,
          new SecureRandom());
  private final ClientService clients =
      new ClientService(stores.clients(), keys, clock, new SecureRandom());
  private final ApiKeyAuthenticator auth = new ApiKeyAuthenticator(clients::registry);

  @Test
  void bearerKey_authenticates_caseInsensitiveScheme() {
    ClientService.CreatedClient c = clients.create("pub", 0, Set.of(Role.GENERATOR));
    assertThat(auth.authenticate("Bearer " + c.key().reveal())).contains(c.client());
    assertThat(auth.authenticate("bEaReR " + c.key().reveal())).isPresent();
    assertThat(c.client().siteId()).isEqualTo((int) c.client().id());
  }

  @Test
  void wrongSecret_unknownId_garbage_missing_areRefused() {
    ClientService.CreatedClient c = clients.create("pub", 0, Set.of(Role.GENERATOR));
    String key = c.key().reveal();
    String wrongSecret = key.substring(0, key.length() - 1) + (key.endsWith("A") ? "B" : "A");
    assertThat(auth.authenticate("Bearer " + wrongSecret)).isEmpty();
    assertThat(auth.authenticate("Bearer vk1.ZZZZZZZZZZZZ." + key.substring(17))).isEmpty();
    assertThat(auth.authenticate("Bearer nonsense")).isEmpty();
    assertThat(auth.authenticate(key)).isEmpty();
    assertThat(auth.authenticate(null)).isEmpty();
    assertThat(auth.authenticate("")).isEmpty();
  }

  @Test
  void whitespaceAroundTheKey_isIgnored_butNotInsideIt() {
    ClientService.CreatedClient c = clients.create("pub", 0, Set.of(Role.GENERATOR));
    String key = c.key().reveal();
    assertThat(auth.authenticate("Bearer   " + key + " \t")).isPresent();
    assertThat(auth.authenticate("Bearer " + key.substring(0, 30) + " " + key.substring(31)))
        .isEmpty();
    assertThat(auth.authenticate("Bearer" + key)).isEmpty();
  }

  @Test
  void disabledClient_andRotatedKey_areRefused() {
    ClientService.CreatedClient c = clients.create("pub", 0, Set.of(Role.MAPPER));
    clients.setEnabled(c.client().id(), false);
    assertThat(auth.authenticate("Bearer " + c.key().reveal())).isEmpty();
    clients.setEnabled(c.client().id(), true);
    ClientService.CreatedClient rotated = clients.rotateKey(c.client().id());
    assertThat(auth.authenticate("Bearer " + c.key().reveal())).isEmpty();
    assertThat(auth.authenticate("Bearer " + rotated.key().reveal())).isPresent();
  }

  @Test
  void storedDigest_neverContainsTheKey() {
    ClientService.CreatedClient c = clients.create("pub", 0, Set.of(Role.MAPPER));
    assertThat(c.client().key().toString()).doesNotContain(c.key().reveal().substring(17));
    assertThat(c.key().toString()).doesNotContain(c.key().reveal().substring(17));
  }

  @Test
  void create_withoutRolesOrName_isRefused() {
    assertThatThrownBy(() -> clients.create(" ", 0, Set.of(Role.MAPPER)))
        .isInstanceOf(VeilException.class);
    assertThatThrownBy(() -> clients.create("x", 0, Set.of())).isInstanceOf(VeilException.class);
  }
}

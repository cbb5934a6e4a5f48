package dev.veil.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.ApiClient;
import dev.veil.client.Role;
import dev.veil.testing.InMemoryNode;
import dev.veil.testing.TestConfigs;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DemoAccountTest {
  private final InMemoryNode node =
      new InMemoryNode(Instant.parse("2025-03-01T12:00:00Z"), TestConfigs.config());

  private List<ApiClient> demoClients() {
    return node.services().clients().list().stream()
        .filter(c -> c.name().equals(DemoAccount.NAME))
        .toList();
  }

  private boolean canGenerate(String key) {
    return node.services()
        .authenticator()
        .authenticate("Bearer " + key)
        .map(c -> c.has(Role.GENERATOR))
        .orElse(false);
  }

  @Test
  void apiKey_createsAGeneratorClientOnce_andGivesItANewKeyOnEachStart() {
    String first = DemoAccount.apiKey(node.services().clients());
    String second = DemoAccount.apiKey(node.services().clients());
    assertThat(demoClients()).hasSize(1);
    assertThat(demoClients().get(0).roles()).containsExactly(Role.GENERATOR);
    assertThat(canGenerate(second)).isTrue();
    assertThat(canGenerate(first)).as("the previous start's key").isFalse();
  }

  @Test
  void apiKey_reenablesADisabledDemoClient() {
    DemoAccount.apiKey(node.services().clients());
    node.services().clients().setEnabled(demoClients().get(0).id(), false);
    assertThat(canGenerate(DemoAccount.apiKey(node.services().clients()))).isTrue();
  }

  @Test
  void apiKey_leavesAClientOfTheSameNameWithOtherRolesAlone() {
    node.services().clients().create(DemoAccount.NAME, 0, Set.of(Role.MAPPER, Role.GENERATOR));
    String key = DemoAccount.apiKey(node.services().clients());
    assertThat(demoClients()).hasSize(2);
    assertThat(node.services().authenticator().authenticate("Bearer " + key).orElseThrow().roles())
        .containsExactly(Role.GENERATOR);
  }
}

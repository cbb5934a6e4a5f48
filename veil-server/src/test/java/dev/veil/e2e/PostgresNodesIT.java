package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.veil.client.ClientService;
import dev.veil.client.Role;
import dev.veil.config.VeilConfig;
import dev.veil.server.VeilServer;
import dev.veil.site.ParticipantType;
import dev.veil.site.Sharing;
import dev.veil.storage.PostgresTestDatabase;
import dev.veil.testing.Await;
import dev.veil.testing.Http;
import dev.veil.testing.TestConfigs;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Veil on PostgreSQL (docs/spec.md 8): two nodes on one database are peers. A client, an opt-out
 * and a salt rotation written through one node reach the other within 5 seconds; a token issued by
 * one node refreshes on the other; a restarted node keeps every acknowledged write.
 */
class PostgresNodesIT {
  private static final Duration PROPAGATION = Duration.ofSeconds(5);
  private static final String MAP_PEER =
      "/v1/identity/map?email=" + Http.encode("peer@example.com");

  @Test
  void twoNodes_shareClientsSitesTokensOptOutsAndSalts_andSurviveRestart() throws Exception {
    try (PostgresTestDatabase pg = PostgresTestDatabase.create()) {
      VeilConfig config = TestConfigs.config("db", pg.url(), "sync.interval", "200ms");
      String key;
      try (VeilServer a = VeilServer.start(config, Clock.systemUTC());
          VeilServer b = VeilServer.start(config, Clock.systemUTC())) {
        assertThat(a.bootstrapAdminKey()).isPresent();
        assertThat(b.bootstrapAdminKey()).isEmpty();

        ClientService.CreatedClient created =
            a.services()
                .clients()
                .create("pub", 0, Set.of(Role.GENERATOR, Role.MAPPER, Role.OPTOUT));
        key = created.key().reveal();
        Await.until(
            PROPAGATION,
            "node B accepts a key created on node A",
            () ->
                b.services()
                    .authenticator()
                    .authenticate("Bearer " + created.key().reveal())
                    .isPresent());

        int site = created.client().siteId();
        a.services()
            .sites()
            .setSharing(site, Optional.of(new Sharing(Set.of(77), Set.of(ParticipantType.DSP))));
        Await.until(
            PROPAGATION,
            "node B applies a sharing permission set on node A",
            () -> b.services().sites().directory().site(site).sharing().isPresent());
        assertThat(b.services().sites().directory().site(site).sharing().orElseThrow())
            .isEqualTo(new Sharing(Set.of(77), Set.of(ParticipantType.DSP)));

        Http httpA = new Http("http://127.0.0.1:" + a.httpPort());
        Http httpB = new Http("http://127.0.0.1:" + b.httpPort());
        JsonNode gen =
            httpA
                .get("/v1/token/generate?email=" + Http.encode("peer@example.com"), key)
                .successBody();
        JsonNode refreshed =
            httpB
                .get(
                    "/v1/token/refresh?refresh_token="
                        + Http.encode(gen.get("refresh_token").asText()),
                    null)
                .successBody();
        assertThat(refreshed.get("advertising_token").asText()).isNotBlank();

        assertThat(httpB.post("/v1/optout", key, "{\"email\":\"peer@example.com\"}").code())
            .isEqualTo(200);
        Duration seen =
            Await.until(
                PROPAGATION,
                "node A answers optout after node B took it",
                () -> httpA.get(MAP_PEER, key).body().contains("\"optout\""));
        assertThat(seen).isLessThan(PROPAGATION);

        int rotated = a.services().salts().rotateFraction(0.25);
        Await.until(
            PROPAGATION,
            "node B sees node A's salt rotation",
            () -> b.services().salts().current().rotatedCount() == rotated);
        assertThat(b.services().salts().current().salt(3))
            .isEqualTo(a.services().salts().current().salt(3));
      }

      try (VeilServer again = VeilServer.start(config, Clock.systemUTC())) {
        Http http = new Http("http://127.0.0.1:" + again.httpPort());
        assertThat(http.get(MAP_PEER, key).body()).contains("\"optout\"");
        assertThat(again.services().salts().current().rotatedCount()).isEqualTo(16);
      }
    }
  }
}

package dev.veil.identity;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.core.identity.IdentityInput;
import dev.veil.server.ServiceGraph;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import dev.veil.testing.TestConfigs;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The server maps exactly as the shared golden vectors (veil-core) say: every valid raw identifier
 * maps to the same advertising id as its golden SHA-256, and every invalid one is refused.
 */
class GoldenNormalizationTest {
  private static final Path VECTORS =
      Path.of("..", "veil-core", "src", "test", "resources", "golden", "vectors.json");

  private final IdentityMapService mapping =
      ServiceGraph.build(
              TestConfigs.config(), MutableClock.at("2026-03-01T12:00:00Z"), new InMemoryStores())
          .services()
          .mapping();

  @Test
  void everyNormalizationVector_mapsLikeItsGoldenHash() throws IOException {
    JsonNode cases = new ObjectMapper().readTree(VECTORS.toFile()).get("normalization");
    assertThat(cases.size()).isGreaterThan(20);
    for (JsonNode c : cases) {
      IdentityInput raw = IdentityInput.fromParameterName(c.get("input").asText());
      IdentityInput hashed = IdentityInput.fromParameterName(c.get("input").asText() + "_hash");
      MapResult fromRaw = mapping.map(raw, c.get("raw").asText(), true);
      if (c.get("normalized").isNull()) {
        assertThat(fromRaw).as(c.toString()).isEqualTo(MapResult.Unmapped.INVALID);
        continue;
      }
      MapResult fromHash = mapping.map(hashed, c.get("sha256Base64").asText(), true);
      assertThat(fromRaw).as(c.toString()).isInstanceOf(MapResult.Mapped.class);
      MapResult.Mapped a = (MapResult.Mapped) fromRaw;
      MapResult.Mapped b = (MapResult.Mapped) fromHash;
      assertThat(a.advertisingId()).as(c.toString()).isEqualTo(b.advertisingId());
      assertThat(a.bucketId()).isEqualTo(b.bucketId());
    }
  }
}

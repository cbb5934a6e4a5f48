package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.veil.client.Role;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.core.token.AdvertisingTokenPayload;
import dev.veil.core.token.EncryptionKey;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http.Response;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class KeyLatestIT {
  private static TestNode node;
  private static String reader;

  @BeforeAll
  static void start() {
    node = TestNode.start();
    reader = node.newApiKey(Role.ID_READER);
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  @Test
  void keyLatest_returnsMasterAndSiteKeysInUid2Shape_neverRefreshKeys() {
    node.newApiKey(Role.GENERATOR); // creates a site keyset

    Response r = node.get("/v1/key/latest", reader);

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.header("Cache-Control")).isEqualTo("no-store");
    JsonNode keys = r.bodyNode();
    assertThat(keys.isArray()).isTrue();
    boolean master = false;
    for (JsonNode key : keys) {
      assertThat(key.path("site_id").asInt()).isNotEqualTo(EncryptionKey.REFRESH_SITE_ID);
      master |= key.path("site_id").asInt() == EncryptionKey.MASTER_SITE_ID;
      assertThat(Base64.getDecoder().decode(key.path("secret").asText())).hasSize(32);
      assertThat(key.path("created").asLong()).isEqualTo(node.clock().instant().getEpochSecond());
      assertThat(key.path("expires").asLong()).isGreaterThan(key.path("activates").asLong());
      assertThat(key.path("id").isInt()).isTrue();
    }
    assertThat(master).isTrue();
    assertThat(keys.size()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void keyLatest_keysDecryptAnAdvertisingTokenWithoutTheServer() {
    String generator = node.newApiKey(Role.GENERATOR);
    String token =
        node.get("/v1/token/generate?email=bidder%40example.com", generator)
            .bodyNode()
            .path("advertising_token")
            .asText();

    Map<Integer, EncryptionKey> fetched = new HashMap<>();
    for (JsonNode key : node.get("/v1/key/latest", reader).bodyNode()) {
      fetched.put(
          key.path("id").asInt(),
          new EncryptionKey(
              key.path("id").asInt(),
              key.path("site_id").asInt(),
              Instant.ofEpochSecond(key.path("created").asLong()),
              Instant.ofEpochSecond(key.path("activates").asLong()),
              Instant.ofEpochSecond(key.path("expires").asLong()),
              Base64.getDecoder().decode(key.path("secret").asText())));
    }
    AdvertisingTokenPayload payload =
        new AdvertisingTokenCodec(NonceSource.secure()).decode(token, fetched::get);

    assertThat(payload.advertisingId()).hasSize(32);
  }

  @Test
  void keyLatest_withoutIdReaderRole_isUnauthorized() {
    assertThat(node.get("/v1/key/latest", node.newApiKey(Role.GENERATOR)).code()).isEqualTo(401);
    assertThat(node.get("/v1/key/latest", null).code()).isEqualTo(401);
  }
}

package dev.veil.http;

import com.fasterxml.jackson.core.Base64Variants;
import dev.veil.core.token.EncryptionKey;
import dev.veil.key.KeyService;
import dev.veil.site.KeyAccess;
import dev.veil.site.SiteService;
import io.vertx.core.http.HttpHeaders;
import java.time.Clock;
import java.util.List;

/**
 * {@code GET /v1/key/latest} (docs/spec.md 1.9): the unexpired master and site keys the calling
 * bidder may read ({@link KeyAccess}; by default every site's), in UID2's shape ({@code id,
 * site_id, created, activates, expires} in epoch seconds, {@code secret} in standard base64).
 * Refresh keys are never included. The answer must not be cached by proxies.
 */
final class KeyLatestEndpoint {
  private final KeyService keys;
  private final SiteService sites;
  private final Clock clock;

  KeyLatestEndpoint(KeyService keys, SiteService sites, Clock clock) {
    this.keys = keys;
    this.sites = sites;
    this.clock = clock;
  }

  void handle(Exchange ex) {
    List<EncryptionKey> bidderKeys =
        KeyAccess.keysFor(ex.client(), keys.ring(), sites.directory(), clock.instant());
    ex.response().putHeader(HttpHeaders.CACHE_CONTROL, "no-store");
    ex.success(
        json -> {
          json.writeStartArray();
          for (EncryptionKey key : bidderKeys) {
            json.writeStartObject();
            json.writeNumberField("id", key.id());
            json.writeNumberField("site_id", key.siteId());
            json.writeNumberField("created", key.created().getEpochSecond());
            json.writeNumberField("activates", key.activates().getEpochSecond());
            json.writeNumberField("expires", key.expires().getEpochSecond());
            json.writeFieldName("secret");
            byte[] secret = key.secret();
            json.writeBinary(Base64Variants.MIME_NO_LINEFEEDS, secret, 0, secret.length);
            json.writeEndObject();
          }
          json.writeEndArray();
        },
        64 + bidderKeys.size() * 160);
  }
}

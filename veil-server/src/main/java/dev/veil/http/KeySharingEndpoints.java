package dev.veil.http;

import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.veil.client.ApiClient;
import dev.veil.client.Role;
import dev.veil.core.token.EncryptionKey;
import dev.veil.key.KeyRing;
import dev.veil.key.KeyService;
import dev.veil.site.KeyAccess;
import dev.veil.site.SharingPolicy;
import dev.veil.site.Site;
import dev.veil.site.SiteDirectory;
import dev.veil.site.SiteService;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.TreeSet;

/**
 * {@code POST /v2/key/sharing} and {@code POST /v2/key/bidstream} (docs/http-api.md, "Keys for
 * bidders and sharers"): the keys the caller may read ({@link KeyAccess}) with what UID2's SDKs
 * need beside them, inside the v2 envelope (the request's payload is ignored; UID2's SDKs send
 * none).
 *
 * <p>Keysets in these answers are named as UID2's SDKs expect: a site's keyset by its site id; the
 * master keyset by {@link #masterKeysetId}, a positive id no caller's own keyset has. A key carries
 * its {@code keyset_id} in the sharing answer only if it belongs to the caller's site or the master
 * keyset (the keys a sharer encrypts with); other keys only decrypt, and UID2's SDKs find them by
 * key id.
 */
final class KeySharingEndpoints {
  /** The identity scope of every Veil token (bit 4 of the identity prefix is 0). */
  private static final String IDENTITY_SCOPE = "UID2";

  private final KeyService keys;
  private final SiteService sites;
  private final SharingPolicy policy;
  private final Clock clock;

  KeySharingEndpoints(KeyService keys, SiteService sites, SharingPolicy policy, Clock clock) {
    this.keys = keys;
    this.sites = sites;
    this.policy = policy;
    this.clock = clock;
  }

  /**
   * The master keyset's id in these answers: {@link Integer#MAX_VALUE}, or one less for a caller
   * whose own site has that id, so it never names the caller's keyset too.
   */
  static int masterKeysetId(int callerSiteId) {
    return callerSiteId == Integer.MAX_VALUE ? Integer.MAX_VALUE - 1 : Integer.MAX_VALUE;
  }

  /** {@code /v2/key/sharing}: roles SHARER or ID_READER. */
  void sharing(Exchange ex, Buffer ignoredPayload) {
    ApiClient caller = ex.client();
    Instant now = clock.instant();
    KeyRing ring = keys.ring();
    SiteDirectory directory = sites.directory();
    List<EncryptionKey> readable = KeyAccess.keysFor(caller, ring, directory, now);
    int master = masterKeysetId(caller.siteId());
    boolean hasDefault = ring.newestKey(caller.siteId()).isPresent();
    ex.response().putHeader(HttpHeaders.CACHE_CONTROL, "no-store");
    ex.success(
        json -> {
          json.writeStartObject();
          json.writeNumberField("caller_site_id", caller.siteId());
          json.writeNumberField("master_keyset_id", master);
          if (hasDefault) {
            json.writeNumberField("default_keyset_id", caller.siteId());
          }
          // A string, as UID2's operator writes it: its oldest SDKs read it so.
          json.writeStringField(
              "token_expiry_seconds", Long.toString(policy.sharingTokenLifetime().toSeconds()));
          if (caller.has(Role.SHARER)) {
            json.writeNumberField(
                "max_sharing_lifetime_seconds", policy.sharingTokenLifetime().toSeconds());
          }
          writeCommonFields(json);
          json.writeArrayFieldStart("keys");
          for (EncryptionKey key : readable) {
            writeKey(json, key);
            if (key.siteId() == caller.siteId()) {
              json.writeNumberField("keyset_id", caller.siteId());
            } else if (key.siteId() == EncryptionKey.MASTER_SITE_ID) {
              json.writeNumberField("keyset_id", master);
            }
            json.writeEndObject();
          }
          json.writeEndArray();
          writeSites(json, readable, directory);
          json.writeEndObject();
        },
        256 + readable.size() * 180);
  }

  /** {@code /v2/key/bidstream}: role ID_READER. */
  void bidstream(Exchange ex, Buffer ignoredPayload) {
    SiteDirectory directory = sites.directory();
    List<EncryptionKey> readable =
        KeyAccess.keysFor(ex.client(), keys.ring(), directory, clock.instant());
    ex.response().putHeader(HttpHeaders.CACHE_CONTROL, "no-store");
    ex.success(
        json -> {
          json.writeStartObject();
          json.writeNumberField(
              "max_bidstream_lifetime_seconds", policy.bidstreamLifetime().toSeconds());
          writeCommonFields(json);
          json.writeArrayFieldStart("keys");
          for (EncryptionKey key : readable) {
            writeKey(json, key);
            json.writeEndObject();
          }
          json.writeEndArray();
          writeSites(json, readable, directory);
          json.writeEndObject();
        },
        256 + readable.size() * 160);
  }

  private void writeCommonFields(JsonGenerator json) throws IOException {
    json.writeStringField("identity_scope", IDENTITY_SCOPE);
    json.writeNumberField("allow_clock_skew_seconds", policy.allowedClockSkew().toSeconds());
  }

  /** Opens the key's object and writes its fields; the caller closes it. */
  private static void writeKey(JsonGenerator json, EncryptionKey key) throws IOException {
    json.writeStartObject();
    json.writeNumberField("id", key.id());
    json.writeNumberField("created", key.created().getEpochSecond());
    json.writeNumberField("activates", key.activates().getEpochSecond());
    json.writeNumberField("expires", key.expires().getEpochSecond());
    json.writeFieldName("secret");
    byte[] secret = key.secret();
    json.writeBinary(Base64Variants.MIME_NO_LINEFEEDS, secret, 0, secret.length);
  }

  /**
   * {@code site_data}: the domain and app names of every site whose keys are in the answer and
   * which has names, ordered by site id.
   */
  private static void writeSites(
      JsonGenerator json, List<EncryptionKey> readable, SiteDirectory directory)
      throws IOException {
    TreeSet<Integer> siteIds = new TreeSet<>();
    for (EncryptionKey key : readable) {
      if (key.siteId() > 0) {
        siteIds.add(key.siteId());
      }
    }
    json.writeArrayFieldStart("site_data");
    for (int siteId : siteIds) {
      Site site = directory.site(siteId);
      if (site.domainNames().isEmpty()) {
        continue;
      }
      json.writeStartObject();
      json.writeNumberField("id", siteId);
      json.writeArrayFieldStart("domain_names");
      for (String name : site.domainNames()) {
        json.writeString(name);
      }
      json.writeEndArray();
      json.writeEndObject();
    }
    json.writeEndArray();
  }
}

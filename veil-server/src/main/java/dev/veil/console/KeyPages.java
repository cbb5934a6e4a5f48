package dev.veil.console;

import dev.veil.audit.AuditDetails;
import dev.veil.client.AdminAction;
import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import dev.veil.core.token.EncryptionKey;
import dev.veil.key.KeyRing;
import dev.veil.salt.SaltService.RotationStatus;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Encryption keys and salts ({@code /keys}): every key's state and the salt buckets' rotation, and
 * the two rotations by hand, each the {@link dev.veil.key.KeyService} or {@link
 * dev.veil.salt.SaltService} call of the admin gRPC API, recorded alike. Key material and salts are
 * never read here.
 */
final class KeyPages {
  static final String SECTION = "/keys";

  private final ConsoleApi api;

  KeyPages(ConsoleApi api) {
    this.api = api;
  }

  ConsoleResponse show(ConsoleRequest r) {
    Html h = new Html();
    h.raw("<section aria-labelledby=\"salts\"><h2 id=\"salts\">Salts</h2>");
    if (AdminAction.GET_SALT_STATUS.allows(r.caller())) {
      RotationStatus s = api.salts().status();
      h.raw("<dl>").element("dt", "Buckets").element("dd", s.bucketCount());
      h.element("dt", "Rotated at least once").element("dd", s.rotatedBuckets());
      h.element("dt", "Oldest salt").element("dd", Layout.time(s.oldestSaltAt()));
      h.element("dt", "Last scheduled rotation").element("dd", s.lastDailyRotationDay());
      h.raw("</dl>");
    }
    h.open("form", "method", "post", "action", "/salts/rotate", "class", "card");
    h.element("h3", "Rotate salts");
    Layout.csrf(h, r);
    Layout.field(
        h,
        "fraction",
        "Fraction of buckets",
        "fraction",
        "0.01",
        true,
        "Greater than 0, at most 1: the oldest salts first. Advertising ids of those buckets"
            + " change.");
    Layout.reason(h, "salts-reason");
    Layout.submit(h, "Rotate salts");
    h.raw("</form></section>");

    Instant now = api.clock().instant();
    h.raw("<section aria-labelledby=\"keys\"><h2 id=\"keys\">Encryption keys</h2>");
    h.open("form", "method", "post", "action", "/keys/rotate", "class", "card");
    h.element("h3", "Rotate keys");
    Layout.csrf(h, r);
    Layout.field(
        h,
        "site-ids",
        "Keysets (site ids, optional)",
        "site_ids",
        "",
        false,
        "Separated by commas; empty rotates every keyset. New keys activate after the delay.");
    Layout.reason(h, "keys-reason");
    Layout.submit(h, "Rotate keys");
    h.raw("</form>");
    h.raw("<table><caption>Every encryption key (the key material is never shown)</caption>")
        .raw("<thead><tr><th scope=\"col\">ID</th><th scope=\"col\">Keyset</th>")
        .raw("<th scope=\"col\">State</th><th scope=\"col\">Created</th>")
        .raw("<th scope=\"col\">Activates</th><th scope=\"col\">Expires</th></tr></thead><tbody>");
    for (EncryptionKey k : api.keys().ring().all()) {
      h.raw("<tr>").element("td", k.id()).element("td", keyset(k.siteId()));
      h.element("td", state(k, now)).element("td", Layout.time(k.created()));
      h.element("td", Layout.time(k.activates())).element("td", Layout.time(k.expires()));
      h.raw("</tr>");
    }
    h.raw("</tbody></table></section>");
    return ConsoleResponse.page(200, Layout.page("Keys and salts", SECTION, r, h));
  }

  ConsoleResponse rotateKeys(ConsoleRequest r) {
    Set<Integer> siteIds = new LinkedHashSet<>(r.form().numbers("site_ids", "Keysets"));
    KeyRing ring = api.keys().ring();
    for (int siteId : siteIds) {
      if (ring.newestKey(siteId).isEmpty()) {
        throw new VeilException(
            ErrorCode.NOT_FOUND, "There is no keyset for site id " + siteId + ".");
      }
    }
    int created =
        api.audit()
            .record(
                r.actor(),
                "RotateKeys",
                "keysets",
                AuditDetails.of().put("site_ids", siteIds).json(),
                () -> api.keys().rotateNow(siteIds))
            .size();
    r.session().notice(created + " new key(s) created; each activates after the delay.");
    return ConsoleResponse.redirect(SECTION);
  }

  ConsoleResponse rotateSalts(ConsoleRequest r) {
    double fraction;
    try {
      fraction = Double.parseDouble(r.form().text("fraction").strip());
    } catch (NumberFormatException e) {
      throw VeilException.clientError("Fraction must be a number greater than 0, at most 1");
    }
    int rotated =
        api.audit()
            .record(
                r.actor(),
                "RotateSalts",
                "salts",
                AuditDetails.of().put("fraction", fraction).json(),
                () -> api.salts().rotateFraction(fraction));
    r.session().notice(rotated + " bucket(s) rotated.");
    return ConsoleResponse.redirect(SECTION);
  }

  private static String keyset(int siteId) {
    return switch (siteId) {
      case EncryptionKey.MASTER_SITE_ID -> "master";
      case EncryptionKey.REFRESH_SITE_ID -> "refresh";
      default -> "site " + siteId;
    };
  }

  private static String state(EncryptionKey k, Instant now) {
    return k.isExpired(now) ? "expired" : now.isBefore(k.activates()) ? "pending" : "active";
  }
}

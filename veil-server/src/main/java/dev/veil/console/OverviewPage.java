package dev.veil.console;

import dev.veil.client.AdminAction;
import dev.veil.client.Role;
import dev.veil.config.DurationFormat;
import dev.veil.core.token.EncryptionKey;
import dev.veil.salt.SaltService.RotationStatus;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;

/**
 * {@code GET /}: the node at a glance, for every signed-in operator: readiness and the age of its
 * data, the encryption keys and salts (for a client holding {@link Role#KEY_ADMIN}, which reading
 * them needs), and the request rates of the public API from the node's own metrics.
 */
final class OverviewPage {
  private final ConsoleApi api;
  private final RequestRates rates;

  OverviewPage(ConsoleApi api, RequestRates rates) {
    this.api = api;
    this.rates = rates;
  }

  ConsoleResponse show(ConsoleRequest r) {
    Html h = new Html();
    node(h);
    keysAndSalts(h, r);
    requests(h);
    return ConsoleResponse.page(200, Layout.page("Overview", "/", r, h));
  }

  private void node(Html h) {
    String notReady = api.readiness().notReadyReason();
    Duration age = api.readiness().syncAge().truncatedTo(ChronoUnit.SECONDS);
    h.raw("<section aria-labelledby=\"node\"><h2 id=\"node\">Node</h2><dl>");
    h.element("dt", "Readiness")
        .element("dd", notReady == null ? "Ready" : "Not ready: " + notReady);
    h.element("dt", "Data age (since the last catch-up with the store)");
    h.element("dd", age.isZero() ? "under a second" : DurationFormat.format(age));
    h.element("dt", "Last catch-up started").element("dd", Layout.time(api.readiness().lastSync()));
    h.raw("</dl></section>");
  }

  private void keysAndSalts(Html h, ConsoleRequest r) {
    h.raw("<section aria-labelledby=\"keys\"><h2 id=\"keys\">Keys and salts</h2>");
    if (!AdminAction.LIST_KEYS.allows(r.caller())) {
      h.element(
          "p",
          "Reading keys and salts needs the KEY_ADMIN role (or ADMIN), which you do not hold.");
      h.raw("</section>");
      return;
    }
    Instant now = api.clock().instant();
    List<EncryptionKey> keys = api.keys().ring().all();
    long active = keys.stream().filter(k -> k.isActive(now)).count();
    long pending = keys.stream().filter(k -> now.isBefore(k.activates())).count();
    long expired = keys.stream().filter(k -> k.isExpired(now)).count();
    RotationStatus salts = api.salts().status();
    h.raw("<dl>");
    h.element("dt", "Encryption keys");
    h.element("dd", active + " active, " + pending + " pending, " + expired + " expired");
    h.element("dt", "Salt buckets");
    h.element(
        "dd", salts.bucketCount() + " (" + salts.rotatedBuckets() + " rotated at least once)");
    h.element("dt", "Oldest salt").element("dd", Layout.time(salts.oldestSaltAt()));
    h.element("dt", "Last scheduled salt rotation").element("dd", salts.lastDailyRotationDay());
    h.raw("</dl>").element("a", "Keys and salts in detail", "href", "/keys").raw("</section>");
  }

  private void requests(Html h) {
    List<RequestRates.Rate> now = rates.now();
    h.raw("<section aria-labelledby=\"requests\"><h2 id=\"requests\">Public API requests</h2>");
    if (now.isEmpty()) {
      h.element("p", "No requests since the node started.").raw("</section>");
      return;
    }
    h.raw("<table><caption>Requests per route since the node started, and per second over")
        .text(" the last " + Math.round(now.get(0).windowSeconds()) + " s")
        .raw("</caption><thead><tr><th scope=\"col\">Route</th>")
        .raw("<th scope=\"col\" class=\"num\">Requests</th>")
        .raw("<th scope=\"col\" class=\"num\">Per second</th></tr></thead><tbody>");
    for (RequestRates.Rate rate : now) {
      h.raw("<tr>").element("td", rate.route());
      h.element("td", rate.total(), "class", "num");
      h.element(
          "td",
          Double.isNaN(rate.perSecond())
              ? "—"
              : String.format(Locale.ROOT, "%.2f", rate.perSecond()),
          "class",
          "num");
      h.raw("</tr>");
    }
    h.raw("</tbody></table></section>");
  }
}

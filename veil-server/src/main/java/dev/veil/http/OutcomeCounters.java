package dev.veil.http;

import dev.veil.identity.MapResult;
import dev.veil.observability.Counter;
import dev.veil.observability.CounterFamily;
import dev.veil.observability.Metrics;
import dev.veil.token.GenerateOutcome;
import dev.veil.token.RefreshOutcome;

/**
 * What the public API decided, counted by outcome: token generations ({@code
 * veil_token_generations_total}), refreshes ({@code veil_token_refreshes_total}) and identifiers
 * mapped ({@code veil_identity_map_identifiers_total}, single and batch maps alike). The endpoints
 * report the outcomes they already branch on; the services decide and count nothing.
 *
 * <p>Every member is resolved here, once, when the routes are wired: counting an outcome is one
 * {@link java.util.concurrent.atomic.LongAdder} increment, without a look-up or an allocation, and
 * a batch adds its totals once ({@link #mappedBatch}). Labels are the outcome names below, a fixed
 * set. Thread-safe.
 */
final class OutcomeCounters {
  private final Counter generated;
  private final Counter generateOptOut;
  private final Counter generateInvalidIdentifier;
  private final Counter refreshed;
  private final Counter refreshOptOut;
  private final Counter refreshExpired;
  private final Counter refreshInvalid;
  private final Counter mapped;
  private final Counter mapOptOut;
  private final Counter mapInvalidIdentifier;

  OutcomeCounters(Metrics metrics) {
    CounterFamily generate =
        metrics.counterFamily(
            "veil_token_generations_total",
            "Token generate requests by outcome: generated, optout, invalid_identifier.",
            "outcome");
    generated = generate.labels("generated");
    generateOptOut = generate.labels("optout");
    generateInvalidIdentifier = generate.labels("invalid_identifier");
    CounterFamily refresh =
        metrics.counterFamily(
            "veil_token_refreshes_total",
            "Token refreshes by outcome: refreshed, optout, expired, invalid.",
            "outcome");
    refreshed = refresh.labels("refreshed");
    refreshOptOut = refresh.labels("optout");
    refreshExpired = refresh.labels("expired");
    refreshInvalid = refresh.labels("invalid");
    CounterFamily map =
        metrics.counterFamily(
            "veil_identity_map_identifiers_total",
            "Identifiers of identity map requests by outcome: mapped, optout, invalid_identifier.",
            "outcome");
    mapped = map.labels("mapped");
    mapOptOut = map.labels("optout");
    mapInvalidIdentifier = map.labels("invalid_identifier");
  }

  void generate(GenerateOutcome outcome) {
    (outcome instanceof GenerateOutcome.Generated ? generated : generateOptOut).inc();
  }

  /** A generate whose identifier does not normalize. */
  void generateInvalidIdentifier() {
    generateInvalidIdentifier.inc();
  }

  void refresh(RefreshOutcome outcome) {
    if (outcome instanceof RefreshOutcome.Refreshed) {
      refreshed.inc();
    } else if (outcome instanceof RefreshOutcome.OptedOut) {
      refreshOptOut.inc();
    } else if (outcome instanceof RefreshOutcome.Expired) {
      refreshExpired.inc();
    } else {
      refreshInvalid.inc();
    }
  }

  /** One identifier of a single map. */
  void mapped(MapResult result) {
    if (result instanceof MapResult.Mapped) {
      mapped.inc();
    } else if (MapResult.Unmapped.OPTOUT.equals(result)) {
      mapOptOut.inc();
    } else {
      mapInvalidIdentifier.inc();
    }
  }

  /** The identifiers of one answered batch, by outcome. */
  void mappedBatch(int mappedCount, int optOutCount, int invalidCount) {
    mapped.add(mappedCount);
    mapOptOut.add(optOutCount);
    mapInvalidIdentifier.add(invalidCount);
  }
}

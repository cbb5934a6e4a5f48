package dev.veil.http;

import dev.veil.salt.SaltService;
import dev.veil.salt.SaltSnapshot;
import java.io.IOException;
import java.time.Instant;

/**
 * {@code GET /v1/identity/buckets} (docs/spec.md 1.8) and {@code POST /v2/identity/buckets}, its
 * form in the v2 envelope: buckets whose current salt took effect strictly after {@code
 * since_timestamp} (from the query, or from the opened JSON body), ordered by that time, streamed
 * by {@link BucketStream} within the node's {@link StreamBudget}, sealed if the exchange's answers
 * are.
 */
final class BucketsEndpoint {
  private final SaltService salts;
  private final StreamBudget budget;

  BucketsEndpoint(SaltService salts, StreamBudget budget) {
    this.salts = salts;
    this.budget = budget;
  }

  void handle(Exchange ex, Params params) throws IOException {
    Instant since = SinceTimestamp.parse(params.get(SinceTimestamp.NAME));
    SaltSnapshot snapshot = salts.current();
    new BucketStream(ex, snapshot, snapshot.updatedAfter(since), budget).start();
  }
}

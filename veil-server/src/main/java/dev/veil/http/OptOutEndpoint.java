package dev.veil.http;

import dev.veil.common.Deadline;
import dev.veil.common.StoreUnavailableException;
import dev.veil.core.identity.IdentityHash;
import dev.veil.identity.IdentityMapper;
import dev.veil.optout.OptOutService;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;

/**
 * {@code POST /v1/optout} (docs/spec.md 1.9): records an opt-out for one identity and answers
 * {@code {"status":"success","body":{"opted_out_at":<epoch ms>}}} once the record is durable.
 * Idempotent: a repeated opt-out answers the time of the first. The store write blocks, so it runs
 * on a worker thread; the answer is written back on the request's event loop.
 *
 * <p>Bounded: the write gets a {@link Deadline} of {@code db.timeout} when the request is handed
 * here, which the worker's queue, the store's lock or pool and the statements all share. The answer
 * does not wait for the worker beyond it: at the deadline a timer on the event loop answers 503,
 * whatever the worker is doing. A write that still completes after that is harmless (an opt-out is
 * idempotent, and the caller retries a 503).
 */
final class OptOutEndpoint {
  private final Vertx vertx;
  private final IdentityMapper mapper;
  private final OptOutService optOuts;
  private final Duration timeout;

  OptOutEndpoint(Vertx vertx, IdentityMapper mapper, OptOutService optOuts, Duration timeout) {
    this.vertx = vertx;
    this.mapper = mapper;
    this.optOuts = optOuts;
    this.timeout = timeout;
  }

  void handle(Exchange ex, Params params) {
    record(ex, params, false);
  }

  /**
   * {@code POST /v2/token/logout}: the same durable opt-out, answered as UID2 answers it, {@code
   * {"status":"success","body":{"optout":"OK"}}}.
   */
  void logout(Exchange ex, Params params) {
    record(ex, params, true);
  }

  private void record(Exchange ex, Params params, boolean uid2Answer) {
    IdentityHash identity = IdentityParam.from(params).parse();
    byte[] firstLevelHash = mapper.firstLevelHash(identity);
    Deadline deadline = Deadline.after(timeout);
    // The timer and the worker's result both run on this request's event loop: no race.
    long guard =
        vertx.setTimer(
            Math.max(1, deadline.remainingMillis()),
            fired -> {
              if (!ex.answered()) {
                ex.fail(
                    new StoreUnavailableException(
                        "opt-out not recorded by the request's deadline (db.timeout "
                            + timeout.toMillis()
                            + " ms)",
                        null));
              }
            });
    vertx
        .executeBlocking(() -> deadline.run(() -> optOuts.record(firstLevelHash)), false)
        .onComplete(
            done -> {
              vertx.cancelTimer(guard);
              if (ex.answered()) {
                return; // the deadline's answer went out first
              }
              if (done.succeeded()) {
                Instant at = done.result();
                ex.success(
                    json -> {
                      json.writeStartObject();
                      if (uid2Answer) {
                        json.writeStringField("optout", "OK");
                      } else {
                        json.writeNumberField("opted_out_at", at.toEpochMilli());
                      }
                      json.writeEndObject();
                    },
                    64);
              } else {
                ex.fail(done.cause());
              }
            });
  }
}

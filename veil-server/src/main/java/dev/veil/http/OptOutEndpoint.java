package dev.veil.http;

import dev.veil.core.identity.IdentityHash;
import dev.veil.identity.IdentityMapper;
import dev.veil.optout.OptOutService;
import io.vertx.core.Vertx;
import java.time.Instant;

/**
 * {@code POST /v1/optout} (docs/spec.md 1.9): records an opt-out for one identity and answers
 * {@code {"status":"success","body":{"opted_out_at":<epoch ms>}}} once the record is durable.
 * Idempotent: a repeated opt-out answers the time of the first. The store write blocks, so it runs
 * on a worker thread; the answer is written back on the request's event loop.
 */
final class OptOutEndpoint {
  private final Vertx vertx;
  private final IdentityMapper mapper;
  private final OptOutService optOuts;

  OptOutEndpoint(Vertx vertx, IdentityMapper mapper, OptOutService optOuts) {
    this.vertx = vertx;
    this.mapper = mapper;
    this.optOuts = optOuts;
  }

  void handle(Exchange ex, Params params) {
    IdentityHash identity = IdentityParam.from(params).parse();
    byte[] firstLevelHash = mapper.firstLevelHash(identity);
    vertx.executeBlocking(() -> optOuts.record(firstLevelHash), false).onComplete(done -> {
      if (done.succeeded()) {
        Instant at = done.result();
        ex.success(json -> {
          json.writeStartObject();
          json.writeNumberField("opted_out_at", at.toEpochMilli());
          json.writeEndObject();
        }, 64);
      } else {
        ex.fail(done.cause());
      }
    });
  }
}

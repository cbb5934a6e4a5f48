package dev.veil.http;

import dev.veil.common.VeilException;
import dev.veil.core.identity.IdentityInput;
import dev.veil.identity.IdentityMapService;
import dev.veil.identity.MapResult;
import io.vertx.core.buffer.Buffer;
import java.time.Clock;
import java.util.Set;

/**
 * {@code GET /v1/identity/map} (one identifier), {@code POST /v1/identity/map} (a batch),
 * docs/spec.md 1.6, and {@code POST /v3/identity/map} (a mixed batch with previous ids and refresh
 * times, docs/http-api.md). Both answers are written by hand ({@link JsonBytes}); the batch's while
 * its body is parsed ({@link MapBatchRequest} hands each identifier to a {@link MapBatchAnswer}).
 */
final class IdentityMapEndpoints {
  private static final byte[] SINGLE_HEAD =
      JsonBytes.ascii("{\"status\":\"success\",\"body\":{\"identifier\":");
  private static final byte[] ADVERTISING_ID = JsonBytes.ascii(",\"advertising_id\":");
  private static final byte[] BUCKET_ID = JsonBytes.ascii(",\"bucket_id\":");
  private static final byte[] SINGLE_TAIL = JsonBytes.ascii("}}");

  /** Bytes of a single answer besides the identifier. */
  private static final int SINGLE_OVERHEAD = 160;

  private final IdentityMapService mapping;
  private final JsonBodies bodies;
  private final int maxBatchSize;
  private final boolean singleRespectsOptOut;
  private final OutcomeCounters outcomes;
  private final Clock clock;

  IdentityMapEndpoints(
      IdentityMapService mapping,
      JsonBodies bodies,
      int maxBatchSize,
      boolean singleRespectsOptOut,
      OutcomeCounters outcomes,
      Clock clock) {
    this.mapping = mapping;
    this.bodies = bodies;
    this.maxBatchSize = maxBatchSize;
    this.singleRespectsOptOut = singleRespectsOptOut;
    this.outcomes = outcomes;
    this.clock = clock;
  }

  /** One identifier: its mapping, optout (veil profile) or {@code Invalid Identifier}. */
  void mapOne(Exchange ex, Params params) {
    IdentityParam identity = IdentityParam.from(params);
    MapResult result = mapping.map(identity.input(), identity.value(), singleRespectsOptOut);
    outcomes.mapped(result);
    if (result instanceof MapResult.Mapped mapped) {
      ex.sendJson(200, singleAnswer(identity.value(), mapped));
    } else if (MapResult.Unmapped.OPTOUT.equals(result)) {
      ex.optout();
    } else {
      throw VeilException.clientError(ErrorResponses.INVALID_IDENTIFIER);
    }
  }

  /**
   * A batch: every identifier is mapped or listed as unmapped with its reason; opt-outs always
   * apply. Identifiers are mapped and written as the body is parsed ({@link MapBatchAnswer}).
   */
  void mapBatch(Exchange ex, Buffer body) {
    MapBatchAnswer answer = new MapBatchAnswer(mapping.batch(), body.length());
    bodies.parse(body, json -> MapBatchRequest.read(json, maxBatchSize, answer));
    ex.sendJson(200, answer.finish());
    // Counted once per answered batch; a batch refused part-way (bad JSON, too many) counts
    // nothing.
    outcomes.mappedBatch(answer.mappedCount(), answer.optOutCount(), answer.invalidCount());
  }

  /**
   * {@code POST /v3/identity/map} (inside the v2 envelope): mixed kinds of identifier, each
   * answered at its index with its current id, previous id and refresh time, or why it is unmapped;
   * written as the body is parsed ({@link MapV3Answer}).
   */
  void mapV3(Exchange ex, Buffer body) {
    MapV3Answer answer = new MapV3Answer(mapping.batch(), clock.instant(), body.length());
    Set<IdentityInput> given =
        bodies.parse(body, json -> MapV3Request.read(json, maxBatchSize, answer));
    ex.sendJson(200, answer.finish(given));
    outcomes.mappedBatch(answer.mappedCount(), answer.optOutCount(), answer.invalidCount());
  }

  /** {@code {"status":"success","body":{"identifier":…,"advertising_id":…,"bucket_id":…}}}. */
  private static Buffer singleAnswer(String identifier, MapResult.Mapped mapped) {
    byte[] id = mapped.advertisingId();
    JsonBytes json = new JsonBytes(SINGLE_OVERHEAD + 6 * identifier.length());
    json.raw(SINGLE_HEAD)
        .string(identifier)
        .raw(ADVERTISING_ID)
        .base64String(id, 0, id.length)
        .raw(BUCKET_ID)
        .string(mapped.bucketId())
        .raw(SINGLE_TAIL);
    return json.toBuffer();
  }
}

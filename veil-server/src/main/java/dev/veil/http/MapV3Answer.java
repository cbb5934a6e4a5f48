package dev.veil.http;

import dev.veil.core.identity.IdentityInput;
import dev.veil.identity.MapBatch;
import dev.veil.identity.MapResult;
import io.vertx.core.buffer.Buffer;
import java.time.Instant;
import java.util.Set;

/**
 * The answer to {@code POST /v3/identity/map}, written while the body is read ({@link
 * MapV3Request}): one array per kind of identifier, in the order the request gave them, each entry
 * at the index of its identifier: {@code {"u":…,"p":…,"r":…}} (current id, id under the previous
 * salt or null, refresh time in epoch seconds) or {@code {"e":"optout"}} / {@code {"e":"invalid
 * identifier"}}. Kinds the request left out follow as empty arrays, so the body always has all
 * four. Every identifier is mapped with one salt snapshot and one {@code now}. Not thread-safe: one
 * per request.
 */
final class MapV3Answer implements MapV3Request.Sink {
  private static final byte[] HEAD = JsonBytes.ascii("{\"status\":\"success\",\"body\":{");
  private static final byte[] CURRENT = JsonBytes.ascii("{\"u\":");
  private static final byte[] PREVIOUS = JsonBytes.ascii(",\"p\":");
  private static final byte[] NULL = JsonBytes.ascii("null");
  private static final byte[] REFRESH = JsonBytes.ascii(",\"r\":");
  private static final byte[] OPTOUT = reason(MapResult.Unmapped.OPTOUT);
  private static final byte[] INVALID = reason(MapResult.Unmapped.INVALID);
  private static final byte[] EMPTY_ARRAY = JsonBytes.ascii(":[]");
  private static final byte[] TAIL = JsonBytes.ascii("}}");

  /**
   * Answer bytes per body byte to start with: a mapped entry is about 110 bytes, its identifier (a
   * hash) about 47 in the body.
   */
  private static final int BYTES_PER_BODY_BYTE = 3;

  private static byte[] reason(MapResult.Unmapped unmapped) {
    return JsonBytes.ascii("{\"e\":\"" + unmapped.reason() + "\"}");
  }

  private final MapBatch batch;
  private final Instant now;
  private final JsonBytes json;
  private int arrays;
  private int inArray;
  private int mappedCount;
  private int optOutCount;
  private int invalidCount;

  MapV3Answer(MapBatch batch, Instant now, int bodyBytes) {
    this.batch = batch;
    this.now = now;
    this.json = new JsonBytes(HEAD.length + 100 + bodyBytes * BYTES_PER_BODY_BYTE);
    json.raw(HEAD);
  }

  @Override
  public void start(IdentityInput input) {
    name(input);
    json.raw(':').raw('[');
    inArray = 0;
  }

  @Override
  public void identifier(IdentityInput input, String value) {
    if (inArray++ > 0) {
      json.raw(',');
    }
    switch (batch.map(input, value)) {
      case MAPPED -> writeMapped();
      case INVALID -> {
        invalidCount++;
        json.raw(INVALID);
      }
      case OPTOUT -> {
        optOutCount++;
        json.raw(OPTOUT);
      }
    }
  }

  @Override
  public void end(IdentityInput input) {
    json.raw(']');
  }

  private void name(IdentityInput input) {
    if (arrays++ > 0) {
      json.raw(',');
    }
    json.string(input.parameterName());
  }

  private void writeMapped() {
    mappedCount++;
    byte[] id = batch.advertisingId();
    json.raw(CURRENT).base64String(id, 0, id.length).raw(PREVIOUS);
    byte[] previous = batch.previousAdvertisingId(now);
    if (previous == null) {
      json.raw(NULL);
    } else {
      json.base64String(previous, 0, previous.length);
    }
    json.raw(REFRESH).number(batch.refreshFromSeconds(now)).raw('}');
  }

  int mappedCount() {
    return mappedCount;
  }

  int optOutCount() {
    return optOutCount;
  }

  int invalidCount() {
    return invalidCount;
  }

  /** The whole answer, given the kinds the request had arrays for; call once, after the body. */
  Buffer finish(Set<IdentityInput> given) {
    for (IdentityInput input : IdentityInput.values()) {
      if (!given.contains(input)) {
        name(input);
        json.raw(EMPTY_ARRAY);
      }
    }
    return json.raw(TAIL).toBuffer();
  }
}

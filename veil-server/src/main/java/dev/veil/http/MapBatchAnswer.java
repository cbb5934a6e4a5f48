package dev.veil.http;

import dev.veil.core.identity.IdentityInput;
import dev.veil.identity.MapBatch;
import dev.veil.identity.MapResult;
import dev.veil.salt.SaltSnapshot;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The answer to {@code POST /v1/identity/map}, written while the body is read: each identifier that
 * {@link MapBatchRequest} hands over is mapped ({@link MapBatch}) and, when mapped, written at once
 * as {@code {"identifier":…,"advertising_id":…,"bucket_id":…}} into the {@code mapped} array
 * ({@link JsonBytes}: the identifier escaped, the id in base64, the bucket id copied as bytes).
 * Unmapped identifiers are kept, in input order, for the {@code unmapped} array that follows; that
 * array is left out when empty (docs/spec.md 1.6). Not thread-safe: one per request.
 */
final class MapBatchAnswer implements MapBatchRequest.Sink {
  private static final byte[] HEAD =
      JsonBytes.ascii("{\"status\":\"success\",\"body\":{\"mapped\":[");
  private static final byte[] IDENTIFIER = JsonBytes.ascii("{\"identifier\":");
  private static final byte[] ADVERTISING_ID = JsonBytes.ascii(",\"advertising_id\":");
  private static final byte[] BUCKET_ID = JsonBytes.ascii(",\"bucket_id\":\"");
  private static final byte[] MAPPED_END = JsonBytes.ascii("\"}");
  private static final byte[] UNMAPPED = JsonBytes.ascii("],\"unmapped\":[");
  private static final byte[] REASON = JsonBytes.ascii(",\"reason\":");
  private static final byte[] TAIL = JsonBytes.ascii("]}}");

  /**
   * Answer bytes per body byte to start with: an entry is about 110 bytes besides its identifier,
   * which takes its length plus 3 in the body (a 20-character email: 129 answer bytes for 23).
   */
  private static final int BYTES_PER_BODY_BYTE = 6;

  private final MapBatch batch;
  private final JsonBytes json;
  private final List<String> unmappedIdentifiers = new ArrayList<>();
  private final List<String> unmappedReasons = new ArrayList<>();
  private int mappedCount;
  private int optOutCount;

  MapBatchAnswer(MapBatch batch, int bodyBytes) {
    this.batch = batch;
    this.json = new JsonBytes(HEAD.length + TAIL.length + bodyBytes * BYTES_PER_BODY_BYTE);
    json.raw(HEAD);
  }

  @Override
  public void identifier(IdentityInput input, String value) {
    switch (batch.map(input, value)) {
      case MAPPED -> writeMapped(value);
      case INVALID -> unmapped(value, MapResult.Unmapped.INVALID);
      case OPTOUT -> {
        optOutCount++;
        unmapped(value, MapResult.Unmapped.OPTOUT);
      }
    }
  }

  private void writeMapped(String identifier) {
    if (mappedCount++ > 0) {
      json.raw(',');
    }
    byte[] id = batch.advertisingId();
    json.raw(IDENTIFIER)
        .string(identifier)
        .raw(ADVERTISING_ID)
        .base64String(id, 0, id.length)
        .raw(BUCKET_ID);
    int at = json.reserve(SaltSnapshot.BUCKET_ID_CHARS);
    batch.copyBucketId(json.array(), at);
    json.raw(MAPPED_END);
  }

  private void unmapped(String identifier, MapResult.Unmapped reason) {
    unmappedIdentifiers.add(identifier);
    unmappedReasons.add(reason.reason());
  }

  int mappedCount() {
    return mappedCount;
  }

  int optOutCount() {
    return optOutCount;
  }

  int invalidCount() {
    return unmappedIdentifiers.size() - optOutCount;
  }

  /** The whole answer; call once, after the body was read without error. */
  Buffer finish() {
    if (!unmappedIdentifiers.isEmpty()) {
      json.raw(UNMAPPED);
      for (int i = 0; i < unmappedIdentifiers.size(); i++) {
        if (i > 0) {
          json.raw(',');
        }
        json.raw(IDENTIFIER)
            .string(unmappedIdentifiers.get(i))
            .raw(REASON)
            .string(unmappedReasons.get(i))
            .raw('}');
      }
    }
    return json.raw(TAIL).toBuffer();
  }
}

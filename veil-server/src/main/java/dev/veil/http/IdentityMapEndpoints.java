package dev.veil.http;

import com.fasterxml.jackson.core.Base64Variant;
import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.veil.common.VeilException;
import dev.veil.identity.IdentityMapService;
import dev.veil.identity.MapResult;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.util.List;

/**
 * {@code GET /v1/identity/map} (one identifier) and {@code POST /v1/identity/map} (a batch), SPEC
 * 1.6. The batch answer is written with the streaming generator in two passes over the results
 * (mapped, then unmapped), both in input order; advertising ids are base64-encoded by the
 * generator straight from their bytes.
 */
final class IdentityMapEndpoints {
  /** Standard base64 with padding, no line feeds. */
  private static final Base64Variant BASE64 = Base64Variants.MIME_NO_LINEFEEDS;
  /** Bytes per mapped entry besides the identifier itself, to size the answer's buffer. */
  private static final int ENTRY_OVERHEAD = 110;

  private final IdentityMapService mapping;
  private final JsonBodies bodies;
  private final int maxBatchSize;
  private final boolean singleRespectsOptOut;

  IdentityMapEndpoints(IdentityMapService mapping, JsonBodies bodies, int maxBatchSize, boolean singleRespectsOptOut) {
    this.mapping = mapping;
    this.bodies = bodies;
    this.maxBatchSize = maxBatchSize;
    this.singleRespectsOptOut = singleRespectsOptOut;
  }

  /** One identifier: its mapping, optout (veil profile) or {@code Invalid Identifier}. */
  void mapOne(Exchange ex, Params params) {
    IdentityParam identity = IdentityParam.from(params);
    MapResult result = mapping.map(identity.input(), identity.value(), singleRespectsOptOut);
    if (result instanceof MapResult.Mapped mapped) {
      ex.success(json -> writeMapped(json, identity.value(), mapped), 160 + identity.value().length());
    } else if (MapResult.Unmapped.OPTOUT.equals(result)) {
      ex.optout();
    } else {
      throw VeilException.clientError(ErrorResponses.INVALID_IDENTIFIER);
    }
  }

  /** A batch: every identifier is mapped or listed as unmapped with its reason; opt-outs always apply. */
  void mapBatch(Exchange ex, Buffer body) {
    MapBatchRequest request = bodies.parse(body, json -> MapBatchRequest.read(json, maxBatchSize));
    List<String> values = request.values();
    MapResult[] results = new MapResult[values.size()];
    boolean anyUnmapped = false;
    int identifierChars = 0;
    for (int i = 0; i < results.length; i++) {
      results[i] = mapping.map(request.input(), values.get(i), true);
      anyUnmapped |= !(results[i] instanceof MapResult.Mapped);
      identifierChars += values.get(i).length();
    }
    boolean withUnmapped = anyUnmapped;
    ex.success(json -> writeBatch(json, values, results, withUnmapped),
        64 + identifierChars + results.length * ENTRY_OVERHEAD);
  }

  private static void writeBatch(JsonGenerator json, List<String> values, MapResult[] results, boolean withUnmapped)
      throws IOException {
    json.writeStartObject();
    json.writeArrayFieldStart("mapped");
    for (int i = 0; i < results.length; i++) {
      if (results[i] instanceof MapResult.Mapped mapped) {
        writeMapped(json, values.get(i), mapped);
      }
    }
    json.writeEndArray();
    if (withUnmapped) {
      json.writeArrayFieldStart("unmapped");
      for (int i = 0; i < results.length; i++) {
        if (results[i] instanceof MapResult.Unmapped unmapped) {
          json.writeStartObject();
          json.writeStringField("identifier", values.get(i));
          json.writeStringField("reason", unmapped.reason());
          json.writeEndObject();
        }
      }
      json.writeEndArray();
    }
    json.writeEndObject();
  }

  private static void writeMapped(JsonGenerator json, String identifier, MapResult.Mapped mapped) throws IOException {
    json.writeStartObject();
    json.writeStringField("identifier", identifier);
    json.writeFieldName("advertising_id");
    byte[] id = mapped.advertisingId();
    json.writeBinary(BASE64, id, 0, id.length);
    json.writeStringField("bucket_id", mapped.bucketId());
    json.writeEndObject();
  }
}

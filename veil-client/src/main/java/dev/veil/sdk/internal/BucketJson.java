package dev.veil.sdk.internal;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.veil.sdk.RotatedBucket;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.function.Consumer;

/**
 * The answer of {@code GET /v1/identity/buckets}: {@code [{"bucket_id","last_updated"}…]}, where
 * {@code last_updated} is an ISO local date-time in UTC. Read as a stream, one bucket at a time, so
 * that a first poll listing every bucket (about a million) needs no large buffer.
 */
public final class BucketJson {
  private BucketJson() {}

  /**
   * The request path for buckets rotated after {@code since} (whole epoch seconds, rounded down).
   */
  public static String path(Instant since) {
    return "/v1/identity/buckets?since_timestamp=" + Math.max(0, since.getEpochSecond());
  }

  /** Hands every bucket of the answer to {@code sink}, in the server's order; returns the count. */
  public static long read(InputStream in, Consumer<RotatedBucket> sink) throws IOException {
    long[] count = {0};
    Envelopes.read(
            in,
            p -> {
              Envelopes.expect(p, p.currentToken(), JsonToken.START_ARRAY);
              while (p.nextToken() == JsonToken.START_OBJECT) {
                sink.accept(bucket(p));
                count[0]++;
              }
              Envelopes.expect(p, p.currentToken(), JsonToken.END_ARRAY);
              return Boolean.TRUE;
            })
        .successBody();
    return count[0];
  }

  private static RotatedBucket bucket(JsonParser p) throws IOException {
    String id = null;
    String updated = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      if ("bucket_id".equals(name)) {
        id = Envelopes.text(p);
      } else if ("last_updated".equals(name)) {
        updated = Envelopes.text(p);
      } else {
        p.skipChildren();
      }
    }
    if (id == null || updated == null) {
      throw new JsonParseException(p, "bucket record lacks bucket_id or last_updated");
    }
    try {
      return new RotatedBucket(id, UtcDateTimes.parse(updated));
    } catch (DateTimeParseException e) {
      throw new JsonParseException(p, "last_updated is not an ISO date-time");
    }
  }
}

package dev.veil.http;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.veil.salt.SaltSnapshot;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.PrimitiveIterator;

/**
 * Streams the answer of {@code GET /v1/identity/buckets} (docs/spec.md 1.8) with chunked encoding:
 * the envelope, then the bucket records in batches of {@link #BATCH}, then the closing brackets.
 *
 * <p>Design note. One JSON generator writes the whole answer into a {@link BufferOutputStream};
 * after each batch the bytes are taken and written to the response, so memory stays at one batch
 * (about 150 KiB) whatever the bucket count. When Netty's write queue is full the stream waits for
 * the drain handler; otherwise the next batch is scheduled on the event loop (not run in a loop),
 * so other connections are served between batches. The buckets come from one immutable {@link
 * SaltSnapshot}, so a rotation during the stream cannot reorder or duplicate records. If the client
 * goes away the stream stops at the next batch.
 */
final class BucketStream {
  static final int BATCH = 2048;
  private static final int BATCH_BYTES = BATCH * 72;
  private static final DateTimeFormatter LAST_UPDATED = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss");

  private final Exchange ex;
  private final SaltSnapshot snapshot;
  private final PrimitiveIterator.OfInt buckets;
  private final Context context;
  private final BufferOutputStream out = new BufferOutputStream(BATCH_BYTES);
  private HttpServerResponse response;
  private JsonGenerator json;
  private boolean finished;
  private long cachedSecond = Long.MIN_VALUE;
  private String cachedText;

  BucketStream(Exchange ex, SaltSnapshot snapshot, PrimitiveIterator.OfInt buckets) {
    this.ex = ex;
    this.snapshot = snapshot;
    this.buckets = buckets;
    this.context = Vertx.currentContext();
  }

  void start() throws IOException {
    json = Envelope.generator(out);
    response = ex.beginStream(Exchange.JSON_CONTENT_TYPE);
    response.closeHandler(v -> finish(false));
    json.writeStartObject();
    json.writeStringField("status", "success");
    json.writeArrayFieldStart("body");
    next();
  }

  private void next() {
    if (finished) {
      return;
    }
    try {
      for (int n = 0; n < BATCH && buckets.hasNext(); n++) {
        int bucket = buckets.nextInt();
        json.writeStartObject();
        json.writeStringField("bucket_id", snapshot.bucketId(bucket));
        json.writeStringField("last_updated", lastUpdated(snapshot.effectiveAtMillis(bucket)));
        json.writeEndObject();
      }
      if (!buckets.hasNext()) {
        json.writeEndArray();
        json.writeEndObject();
        json.close();
        finished = true;
        response.end(out.take(0));
        ex.streamEnded(true);
        return;
      }
      json.flush();
      response.write(out.take(BATCH_BYTES));
    } catch (IOException | RuntimeException e) {
      finished = true;
      ex.fail(e);
      ex.streamEnded(false);
      return;
    }
    if (response.writeQueueFull()) {
      response.drainHandler(v -> {
        response.drainHandler(null);
        next();
      });
    } else {
      context.runOnContext(v -> next());
    }
  }

  private void finish(boolean complete) {
    if (!finished) {
      finished = true;
      ex.streamEnded(complete);
    }
  }

  private String lastUpdated(long epochMillis) {
    long second = Math.floorDiv(epochMillis, 1000L);
    if (second != cachedSecond) {
      cachedSecond = second;
      cachedText = LAST_UPDATED.format(LocalDateTime.ofEpochSecond(second, 0, ZoneOffset.UTC));
    }
    return cachedText;
  }
}

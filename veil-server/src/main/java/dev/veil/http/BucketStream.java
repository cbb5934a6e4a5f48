package dev.veil.http;

import dev.veil.salt.SaltSnapshot;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import java.util.PrimitiveIterator;

/**
 * Streams the buckets answer (docs/spec.md 1.8) with chunked encoding, in the chunks of {@link
 * BucketChunks} encoded as the exchange asks ({@link ChunkEncoding}: the JSON itself for {@code GET
 * /v1/identity/buckets}, sealed for {@code POST /v2/identity/buckets}), at most 32 KiB each on the
 * wire.
 *
 * <p>Design note. One chunk in flight per connection: the stream takes a chunk's worth of the
 * node's {@link StreamBudget}, formats the chunk, writes it, and only when the write has completed
 * (Netty handed the bytes to the kernel) gives the budget back and asks for the next chunk's. So a
 * client that stops reading holds one chunk, and all such clients together at most the budget. (A
 * stream must not rely on Vert.x's {@code writeQueueFull()}: that queue counts messages, not bytes,
 * so it reports itself full only after 16 writes of whatever size.) The next chunk is asked for
 * from the event loop's task queue, not in a loop, so other connections are served between chunks.
 * While a write is pending a timer checks, every {@code http.stream-stall-timeout}, whether it has
 * been pending that long; if so the connection is closed ({@link StalledConnection}), which fails
 * the write and so gives the budget back.
 *
 * <p>A chunk's budget covers its bytes as sent, so an encoding that makes chunks larger (base64)
 * gets less JSON per chunk ({@link ChunkEncoding#jsonBytesPerChunk}); what an encoding keeps
 * between chunks (a cipher's state, about 1.4 KB) is not counted.
 *
 * <p>The buckets come from one immutable {@link SaltSnapshot}, so a rotation during the stream
 * cannot reorder or duplicate records. If the client goes away the stream stops: a request for
 * budget still waiting is withdrawn, and a pending write fails. Runs on the request's event loop.
 */
final class BucketStream {
  private static final int CHUNK_BUDGET = BucketChunks.MAX_BYTES;

  private final Exchange ex;
  private final ChunkEncoding encoding;
  private final BucketChunks chunks;
  private final StreamBudget budget;
  private final Context context;
  private final Vertx vertx;
  private final long stallNanos;
  private HttpServerResponse response;
  private StreamBudget.Request waiting;
  private boolean finished;
  private boolean writing;
  private long writeStartedNanos;
  private long stallTimer = -1;

  BucketStream(
      Exchange ex, SaltSnapshot snapshot, PrimitiveIterator.OfInt buckets, StreamBudget budget) {
    this.ex = ex;
    this.encoding = ex.chunkEncoding();
    this.chunks = new BucketChunks(snapshot, buckets, encoding.jsonBytesPerChunk(CHUNK_BUDGET));
    this.budget = budget;
    this.context = Vertx.currentContext();
    this.vertx = context.owner();
    this.stallNanos = budget.stallTimeout().toNanos();
  }

  void start() {
    response = ex.beginStream(encoding.contentType());
    response.closeHandler(v -> finish(false));
    askForBudget();
  }

  private void askForBudget() {
    if (!finished) {
      waiting = budget.acquire(CHUNK_BUDGET, () -> context.runOnContext(v -> writeNext()));
    }
  }

  private void writeNext() {
    waiting = null;
    if (finished) {
      budget.release(CHUNK_BUDGET); // granted as the connection closed
      return;
    }
    Future<Void> written;
    try {
      Buffer chunk = encoding.encode(chunks.next(), chunks.ended());
      written = chunks.ended() ? ex.endStream(chunk) : response.write(chunk);
    } catch (RuntimeException e) {
      budget.release(CHUNK_BUDGET);
      finish(false);
      ex.fail(e);
      return;
    }
    writing = true;
    writeStartedNanos = System.nanoTime();
    if (stallTimer == -1) {
      stallTimer =
          vertx.setTimer(Math.max(1, budget.stallTimeout().toMillis()), id -> checkStall());
    }
    if (chunks.ended()) {
      finish(true);
    }
    // Completes on this event loop, possibly before write() returns: the next chunk goes through
    // the task queue either way.
    written.onComplete(result -> written());
  }

  private void written() {
    writing = false;
    budget.release(CHUNK_BUDGET);
    if (finished) {
      stopStallTimer();
    } else {
      context.runOnContext(v -> askForBudget());
    }
  }

  private void checkStall() {
    stallTimer = -1;
    if (!writing) {
      return; // the next write starts the timer again
    }
    long pending = System.nanoTime() - writeStartedNanos;
    if (pending >= stallNanos) {
      budget.stalled();
      StalledConnection.close(ex.request().connection());
    } else {
      stallTimer =
          vertx.setTimer(
              Math.max(1, (stallNanos - pending + 999_999) / 1_000_000), id -> checkStall());
    }
  }

  private void stopStallTimer() {
    if (stallTimer != -1) {
      vertx.cancelTimer(stallTimer);
      stallTimer = -1;
    }
  }

  /**
   * No more chunks: the last was written ({@code complete}), or the connection closed or failed.
   */
  private void finish(boolean complete) {
    if (finished) {
      return;
    }
    finished = true;
    if (waiting != null && waiting.cancel()) {
      waiting = null;
    }
    if (!writing) {
      stopStallTimer();
    }
    ex.streamEnded(complete);
  }
}

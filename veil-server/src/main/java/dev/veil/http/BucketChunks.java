package dev.veil.http;

import dev.veil.salt.SaltSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.PrimitiveIterator;

/**
 * The JSON of the buckets answer ({@code GET /v1/identity/buckets}, sealed for {@code POST
 * /v2/identity/buckets}) cut into chunks of at most a given size ({@link #MAX_BYTES} for v1):
 * <code>{"status":"success","body":[</code>, then <code>{"bucket_id":…,"last_updated":…}</code>
 * records separated by commas, then <code>]}</code>.
 *
 * <p>Written by hand into one array per chunk ({@link JsonBytes}): a bucket id is base64url and a
 * time is digits and punctuation, so nothing needs escaping, and no generator or buffer is kept
 * between chunks, which matters when thousands of answers wait for their clients. A chunk's array
 * is allocated at the chunk size and never grows (it has room for as many records with the longest
 * time {@link LocalDateTime} can print: {@link #RECORDS} in {@link #MAX_BYTES}). Not thread-safe:
 * one per answer.
 */
final class BucketChunks {
  /** The most bytes of one chunk of the v1 answer, sent as it is. */
  static final int MAX_BYTES = 32 * 1024;

  private static final byte[] HEAD = JsonBytes.ascii("{\"status\":\"success\",\"body\":[");
  private static final byte[] TAIL = JsonBytes.ascii("]}");
  private static final byte[] BUCKET_ID = JsonBytes.ascii("{\"bucket_id\":\"");
  private static final byte[] LAST_UPDATED = JsonBytes.ascii("\",\"last_updated\":\"");
  private static final byte[] RECORD_END = JsonBytes.ascii("\"}");
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss");

  /** {@code +999999999-12-31T23:59:59}: a time is 19 characters until the year 10000. */
  private static final int LONGEST_TIME = 26;

  private static final int MAX_RECORD_BYTES =
      1
          + BUCKET_ID.length
          + SaltSnapshot.BUCKET_ID_CHARS
          + LAST_UPDATED.length
          + LONGEST_TIME
          + RECORD_END.length;

  /** Records per chunk of {@link #MAX_BYTES} (448; a chunk of today's records is about 29.6 KB). */
  static final int RECORDS = recordsPerChunk(MAX_BYTES);

  private final SaltSnapshot snapshot;
  private final PrimitiveIterator.OfInt buckets;
  private final int chunkBytes;
  private final int records;
  private boolean begun;
  private boolean anyRecord;
  private boolean ended;
  private long cachedSecond = Long.MIN_VALUE;
  private byte[] cachedTime;

  /**
   * @param chunkBytes the most bytes of one chunk, and the size of the array it is written into
   * @throws IllegalArgumentException if a chunk of that size cannot hold a record
   */
  BucketChunks(SaltSnapshot snapshot, PrimitiveIterator.OfInt buckets, int chunkBytes) {
    this.snapshot = snapshot;
    this.buckets = buckets;
    this.chunkBytes = chunkBytes;
    this.records = recordsPerChunk(chunkBytes);
    if (records < 1) {
      throw new IllegalArgumentException("a chunk of " + chunkBytes + " bytes holds no record");
    }
  }

  /** The records that fit in a chunk of {@code chunkBytes}, whatever their times. */
  static int recordsPerChunk(int chunkBytes) {
    return (chunkBytes - HEAD.length - TAIL.length) / MAX_RECORD_BYTES;
  }

  /** Whether the last chunk (the one with the closing brackets) has been taken. */
  boolean ended() {
    return ended;
  }

  /**
   * The next chunk: the opening before the first record, the closing after the last. Call while not
   * {@link #ended()}.
   */
  JsonBytes next() {
    if (ended) {
      throw new IllegalStateException("the answer has ended");
    }
    JsonBytes json = new JsonBytes(chunkBytes);
    if (!begun) {
      begun = true;
      json.raw(HEAD);
    }
    for (int n = 0; n < records && buckets.hasNext(); n++) {
      int bucket = buckets.nextInt();
      if (anyRecord) {
        json.raw(',');
      }
      anyRecord = true;
      json.raw(BUCKET_ID);
      int at = json.reserve(SaltSnapshot.BUCKET_ID_CHARS);
      snapshot.copyBucketId(bucket, json.array(), at);
      json.raw(LAST_UPDATED).raw(time(snapshot.effectiveAtMillis(bucket))).raw(RECORD_END);
    }
    if (!buckets.hasNext()) {
      ended = true;
      json.raw(TAIL);
    }
    return json;
  }

  /** Buckets rotated together share their time: format it once per second. */
  private byte[] time(long epochMillis) {
    long second = Math.floorDiv(epochMillis, 1000L);
    if (second != cachedSecond) {
      cachedSecond = second;
      cachedTime =
          TIME.format(LocalDateTime.ofEpochSecond(second, 0, ZoneOffset.UTC))
              .getBytes(StandardCharsets.US_ASCII);
    }
    return cachedTime;
  }
}

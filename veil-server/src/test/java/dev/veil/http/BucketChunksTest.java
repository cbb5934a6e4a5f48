package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.veil.salt.BucketSalt;
import dev.veil.salt.SaltSnapshot;
import dev.veil.salt.SaltSystem;
import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.PrimitiveIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BucketChunksTest {
  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss");

  private static SaltSnapshot snapshot(int buckets) {
    byte[] secret = new byte[32];
    SaltSnapshot initial =
        SaltSnapshot.initial(new SaltSystem(buckets, CREATED, secret, secret, secret));
    // Two rotations: records with a later time, listed after the unrotated ones.
    return initial.with(
        List.of(
            new BucketSalt(1, 1, Instant.parse("2026-02-03T04:05:06.789Z")),
            new BucketSalt(0, 1, Instant.parse("9999-12-31T23:59:59Z"))));
  }

  private static List<Buffer> chunks(SaltSnapshot snapshot, PrimitiveIterator.OfInt buckets) {
    BucketChunks chunks = new BucketChunks(snapshot, buckets, BucketChunks.MAX_BYTES);
    List<Buffer> out = new ArrayList<>();
    while (!chunks.ended()) {
      out.add(chunks.next().toBuffer());
    }
    return out;
  }

  /** The answer as a JSON generator writes it, record by record. */
  private static String withJackson(SaltSnapshot snapshot, PrimitiveIterator.OfInt buckets)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator json = Envelope.JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("status", "success");
      json.writeArrayFieldStart("body");
      while (buckets.hasNext()) {
        int bucket = buckets.nextInt();
        json.writeStartObject();
        json.writeStringField("bucket_id", snapshot.bucketId(bucket));
        json.writeStringField(
            "last_updated",
            TIME.format(
                LocalDateTime.ofEpochSecond(
                    Math.floorDiv(snapshot.effectiveAtMillis(bucket), 1000L), 0, ZoneOffset.UTC)));
        json.writeEndObject();
      }
      json.writeEndArray();
      json.writeEndObject();
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 447, 448, 449, 896, 5000})
  void theChunksTogether_areTheWholeAnswer_eachAtMost32KiB(int buckets) throws IOException {
    SaltSnapshot snapshot = snapshot(buckets);

    List<Buffer> chunks = chunks(snapshot, snapshot.updatedAfter(Instant.EPOCH));

    StringBuilder joined = new StringBuilder();
    chunks.forEach(c -> joined.append(c.toString(StandardCharsets.UTF_8)));
    assertThat(joined.toString())
        .isEqualTo(withJackson(snapshot, snapshot.updatedAfter(Instant.EPOCH)));
    assertThat(chunks)
        .hasSize(Math.max(1, (buckets + BucketChunks.RECORDS - 1) / BucketChunks.RECORDS))
        .allSatisfy(c -> assertThat(c.length()).isLessThanOrEqualTo(BucketChunks.MAX_BYTES));
  }

  @Test
  void anEmptyAnswer_isOneChunk() {
    SaltSnapshot snapshot = snapshot(16);

    List<Buffer> chunks =
        chunks(snapshot, snapshot.updatedAfter(Instant.parse("9999-12-31T23:59:59Z")));

    assertThat(chunks)
        .extracting(c -> c.toString(StandardCharsets.UTF_8))
        .containsExactly("{\"status\":\"success\",\"body\":[]}");
  }

  @Test
  void aChunkOfTodaysRecords_usesMostOfItsArray() {
    SaltSnapshot snapshot = snapshot(1000);

    Buffer first = chunks(snapshot, snapshot.updatedAfter(Instant.EPOCH)).get(0);

    assertThat(BucketChunks.RECORDS).isEqualTo(448);
    assertThat(first.length()).isBetween(BucketChunks.MAX_BYTES * 9 / 10, BucketChunks.MAX_BYTES);
  }
}

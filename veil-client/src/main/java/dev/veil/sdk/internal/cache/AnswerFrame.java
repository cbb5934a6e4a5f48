package dev.veil.sdk.internal.cache;

import dev.veil.sdk.MapOutcome;
import dev.veil.sdk.Rejection;
import dev.veil.sdk.internal.MapAnswer;
import dev.veil.sdk.internal.ValueList;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One answer as a frame, built before the store's lock is taken: a {@code MAP} record per mapped
 * entry; {@code REMOVE} and {@code REJECT} per unmapped one. Once the frame is appended, {@link
 * #applyTo} updates the store's state from the positions it got.
 */
final class AnswerFrame {
  private final PendingBatch part;
  private final MapAnswer answer;
  private final Frame frame;
  private final int[] offsets;
  private final int[] counts = new int[4];
  private final List<Rejection> removed = new ArrayList<>();

  private AnswerFrame(PendingBatch part, MapAnswer answer, Frame frame) {
    this.part = part;
    this.answer = answer;
    this.frame = frame;
    this.offsets = new int[part.size()];
  }

  /** Bytes a frame for {@code entries} answers usually takes (it grows if it must). */
  static int expectedBytes(int entries) {
    return entries * 112;
  }

  /**
   * @throws IllegalArgumentException if the answer does not have one result per entry
   */
  static AnswerFrame of(PendingBatch part, MapAnswer answer, Instant mappedAt, Instant now) {
    return of(part, answer, mappedAt, now, new Frame(expectedBytes(part.size())));
  }

  /**
   * {@link #of(PendingBatch, MapAnswer, Instant, Instant)} built in {@code frame}, which must be
   * empty.
   */
  static AnswerFrame of(
      PendingBatch part, MapAnswer answer, Instant mappedAt, Instant now, Frame frame) {
    if (answer.size() != part.size()) {
      throw new IllegalArgumentException(
          "answer has " + answer.size() + " results for " + part.size() + " entries");
    }
    AnswerFrame built = new AnswerFrame(part, answer, frame);
    built.build(mappedAt.toEpochMilli(), now);
    return built;
  }

  private void build(long mappedAtMillis, Instant now) {
    ValueList values = part.values();
    for (int i = 0; i < offsets.length; i++) {
      if (answer.isMapped(i)) {
        offsets[i] = frame.nextRecordOffset();
        if (answer.isV3()) {
          boolean previous = answer.hasPrevious(i);
          frame.map3(
              part.entry(i),
              mappedAtMillis,
              answer.refreshFromMillis(i),
              answer.data(),
              answer.advertisingIdStart(i),
              answer.advertisingIdLength(i),
              previous ? answer.previousStart(i) : 0,
              previous ? answer.previousLength(i) : 0);
        } else {
          frame.map(
              part.entry(i),
              mappedAtMillis,
              answer.data(),
              answer.advertisingIdStart(i),
              answer.advertisingIdLength(i),
              answer.bucketIdStart(i),
              answer.bucketIdLength(i));
        }
        counts[part.mappedBefore(i) ? 1 : 0]++;
      } else {
        MapOutcome.Reason reason = MapOutcome.Reason.fromWire(answer.reason(i));
        frame.remove(part.entry(i));
        offsets[i] = frame.nextRecordOffset();
        frame.reject(
            part.kindCode(i),
            ReasonCode.of(reason),
            now.toEpochMilli(),
            values.bytes(),
            values.start(i),
            values.length(i));
        counts[reason == MapOutcome.Reason.OPTED_OUT ? 2 : 3]++;
        removed.add(new Rejection(part.identifier(i), reason, now));
      }
    }
  }

  ByteBuffer seal() {
    return frame.seal();
  }

  /** Under the store's guard, after the frame was appended with its payload at {@code base}. */
  void applyTo(StoreState state, long base) {
    for (int i = 0; i < offsets.length; i++) {
      if (answer.isMapped(i)) {
        state.entries.mapped(
            part.entry(i), base + offsets[i], answer.isV3() ? answer.refreshFromMillis(i) : 0);
      } else {
        state.entries.remove(part.entry(i));
        state.rejected(base + offsets[i]);
      }
    }
  }

  /**
   * Where each entry's {@code MAP} record went once the frame's payload is at {@code base}; -1 for
   * an unmapped one.
   */
  long[] mapPositions(long base) {
    long[] at = new long[offsets.length];
    for (int i = 0; i < offsets.length; i++) {
      at[i] = answer.isMapped(i) ? base + offsets[i] : -1;
    }
    return at;
  }

  MappingStore.Applied applied(long end) {
    return new MappingStore.Applied(counts[0], counts[1], counts[2], counts[3], removed, end);
  }
}

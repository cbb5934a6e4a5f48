package dev.veil.sdk.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The answer to one {@code POST /v1/identity/map}, one result per value sent, in the order sent:
 * mapped (advertising id and bucket id, kept as the ASCII bytes received, in one array) or unmapped
 * (the server's reason word). Immutable once read.
 */
public final class MapAnswer {
  private final byte[] data;
  private final int[] offsets;
  private final String[] reasons;
  private final boolean idsPlainCsv;

  /**
   * Answers of {@code POST /v3/identity/map} only (else null): for result {@code i}, the previous
   * advertising id at {@code [previous[2i], previous[2i+1])} of {@link #data} (both -1 if none).
   */
  private final int[] previous;

  /** Answers of v3 only (else null): for result {@code i}, the refresh time in epoch ms. */
  private final long[] refreshFromMillis;

  /**
   * @param data the advertising and bucket ids of mapped results, back to back
   * @param offsets for result {@code i}: advertising id at {@code [offsets[4i], offsets[4i+1])},
   *     bucket id at {@code [offsets[4i+2], offsets[4i+3])}
   * @param reasons for result {@code i}: null if mapped, else the reason word
   */
  MapAnswer(byte[] data, int[] offsets, String[] reasons) {
    this(data, offsets, reasons, false);
  }

  /**
   * @param idsPlainCsv known: no advertising or bucket id holds a byte that a CSV field must quote
   */
  MapAnswer(byte[] data, int[] offsets, String[] reasons, boolean idsPlainCsv) {
    this(data, offsets, reasons, idsPlainCsv, null, null);
  }

  /**
   * A v3 answer: the bucket id ranges of {@code offsets} are empty; {@code previous} and {@code
   * refreshFromMillis} as the fields say.
   */
  MapAnswer(
      byte[] data,
      int[] offsets,
      String[] reasons,
      boolean idsPlainCsv,
      int[] previous,
      long[] refreshFromMillis) {
    this.data = data;
    this.offsets = offsets;
    this.reasons = reasons;
    this.idsPlainCsv = idsPlainCsv;
    this.previous = previous;
    this.refreshFromMillis = refreshFromMillis;
  }

  /**
   * Whether this answers {@code POST /v3/identity/map}: no bucket ids, but previous ids and refresh
   * times.
   */
  public boolean isV3() {
    return refreshFromMillis != null;
  }

  /** v3: whether result {@code i} (mapped) has a previous advertising id. */
  public boolean hasPrevious(int i) {
    return previous != null && previous[2 * i] >= 0;
  }

  public int previousStart(int i) {
    return previous[2 * i];
  }

  public int previousLength(int i) {
    return previous[2 * i + 1] - previous[2 * i];
  }

  /** v3: when result {@code i} (mapped) should be mapped again, in epoch milliseconds. */
  public long refreshFromMillis(int i) {
    return refreshFromMillis[i];
  }

  /**
   * True if no advertising or bucket id holds a comma, a quote, CR or LF, so that CSV rows can take
   * them as they are (known when the answer was scanned in place; false when not known).
   */
  public boolean idsPlainCsv() {
    return idsPlainCsv;
  }

  /**
   * An answer of {@code size} unmapped results with the same reason, made without asking the
   * server.
   */
  public static MapAnswer allUnmapped(int size, String reason) {
    String[] reasons = new String[size];
    Arrays.fill(reasons, reason);
    return new MapAnswer(new byte[0], new int[4 * size], reasons);
  }

  public int size() {
    return reasons.length;
  }

  public boolean isMapped(int i) {
    return reasons[i] == null;
  }

  /** The server's reason word for an unmapped result, e.g. {@code optout}. */
  public String reason(int i) {
    return reasons[i];
  }

  public String advertisingId(int i) {
    return new String(data, advertisingIdStart(i), advertisingIdLength(i), StandardCharsets.UTF_8);
  }

  public String bucketId(int i) {
    return new String(data, bucketIdStart(i), bucketIdLength(i), StandardCharsets.UTF_8);
  }

  /** The array holding the ids; read it with the offsets below, never change it. */
  public byte[] data() {
    return data;
  }

  public int advertisingIdStart(int i) {
    return offsets[4 * i];
  }

  public int advertisingIdLength(int i) {
    return offsets[4 * i + 1] - offsets[4 * i];
  }

  public int bucketIdStart(int i) {
    return offsets[4 * i + 2];
  }

  public int bucketIdLength(int i) {
    return offsets[4 * i + 3] - offsets[4 * i + 2];
  }
}

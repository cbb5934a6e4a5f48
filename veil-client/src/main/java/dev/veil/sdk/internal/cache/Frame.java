package dev.veil.sdk.internal.cache;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * A frame being built: the records of one atomic step, preceded by room for the frame head that
 * {@link #seal()} fills in (payload length, CRC32C of length and payload). The record layouts are
 * documented in {@link Records}. Not thread-safe; reusable after {@link #reset()}.
 */
final class Frame {
  static final int HEAD = 8;
  private static final VarHandle BIG_ENDIAN_LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private byte[] buf;
  private int size = HEAD;

  Frame(int capacity) {
    buf = new byte[Math.max(capacity, 64)];
  }

  void reset() {
    size = HEAD;
  }

  /** Bytes of payload so far. */
  int payloadSize() {
    return size - HEAD;
  }

  boolean isEmpty() {
    return size == HEAD;
  }

  /** Offset in the payload where the next record starts. */
  int nextRecordOffset() {
    return size - HEAD;
  }

  /** The payload, for reading records back before the frame is written. */
  byte[] array() {
    return buf;
  }

  // --- records ---

  void add(int kind, byte[] value, int off, int len) {
    ensure(2 + 5 + len);
    put(Records.ADD);
    put(kind);
    varint(len);
    bytes(value, off, len);
  }

  void map(
      int entry,
      long mappedAtMillis,
      byte[] src,
      int advOff,
      int advLen,
      int bucketOff,
      int bucketLen) {
    ensure(1 + 5 + 8 + 10 + advLen + bucketLen);
    put(Records.MAP);
    varint(entry);
    int64(mappedAtMillis);
    varint(advLen);
    bytes(src, advOff, advLen);
    varint(bucketLen);
    bytes(src, bucketOff, bucketLen);
  }

  void map3(
      int entry,
      long mappedAtMillis,
      long refreshFromMillis,
      byte[] src,
      int advOff,
      int advLen,
      int previousOff,
      int previousLen) {
    ensure(1 + 5 + 16 + 10 + advLen + previousLen);
    put(Records.MAP3);
    varint(entry);
    int64(mappedAtMillis);
    int64(refreshFromMillis);
    varint(advLen);
    bytes(src, advOff, advLen);
    varint(previousLen);
    bytes(src, previousOff, previousLen);
  }

  /** Marks {@code entries[0..count)} stale; they must be ascending. */
  void stale(int[] entries, int count) {
    ensure(1 + 5 + 5 * count);
    put(Records.STALE);
    varint(count);
    int previous = 0;
    for (int i = 0; i < count; i++) {
      varint(entries[i] - previous);
      previous = entries[i];
    }
  }

  void remove(int entry) {
    ensure(6);
    put(Records.REMOVE);
    varint(entry);
  }

  void reject(int kind, int reason, long atMillis, byte[] value, int off, int len) {
    ensure(3 + 8 + 5 + len);
    put(Records.REJECT);
    put(kind);
    put(reason);
    int64(atMillis);
    varint(len);
    bytes(value, off, len);
  }

  void meta(String key, String value) {
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    byte[] v = value.getBytes(StandardCharsets.UTF_8);
    ensure(11 + k.length + v.length);
    put(Records.META);
    varint(k.length);
    bytes(k, 0, k.length);
    varint(v.length);
    bytes(v, 0, v.length);
  }

  /**
   * A record copied as it is (an {@code ADD} or {@code REJECT}: they do not name entry numbers).
   */
  void raw(byte[] src, int off, int len) {
    ensure(len);
    bytes(src, off, len);
  }

  /**
   * A {@code MAP} or {@code MAP3} record ({@code type}) copied under a new entry number; {@code
   * rest} is all it holds after the number.
   */
  void mapAs(int type, int entry, byte[] src, int restOff, int restLen) {
    ensure(6 + restLen);
    put(type);
    varint(entry);
    bytes(src, restOff, restLen);
  }

  /** Fills in the head and returns the whole frame, ready to be written. */
  ByteBuffer seal() {
    int length = size - HEAD;
    writeInt(buf, 0, length);
    CRC32C crc = new CRC32C();
    crc.update(buf, 0, 4);
    crc.update(buf, HEAD, length);
    writeInt(buf, 4, (int) crc.getValue());
    return ByteBuffer.wrap(buf, 0, size);
  }

  // --- encoding ---

  private void ensure(int more) {
    if (size + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
    }
  }

  private void put(int b) {
    buf[size++] = (byte) b;
  }

  private void varint(long value) {
    long v = value;
    while ((v & ~0x7FL) != 0) {
      buf[size++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[size++] = (byte) v;
  }

  private void int64(long v) {
    BIG_ENDIAN_LONGS.set(buf, size, v);
    size += 8;
  }

  private void bytes(byte[] src, int off, int len) {
    System.arraycopy(src, off, buf, size, len);
    size += len;
  }

  static void writeInt(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
  }

  static int readInt(byte[] b, int at) {
    return (b[at] & 0xFF) << 24
        | (b[at + 1] & 0xFF) << 16
        | (b[at + 2] & 0xFF) << 8
        | (b[at + 3] & 0xFF);
  }
}

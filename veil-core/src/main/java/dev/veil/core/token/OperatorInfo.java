package dev.veil.core.token;

import java.nio.ByteBuffer;

/**
 * The operator (Veil node) that issued a token, as written into both token formats: site id (4
 * bytes), type (1), version (4), key id (4), big-endian, {@value #BYTES} bytes in all. The values
 * are opaque to the codec.
 */
public record OperatorInfo(int siteId, byte type, int version, int keyId) {
  /** Length on the wire in bytes. */
  public static final int BYTES = 13;

  void writeTo(ByteBuffer out) {
    out.putInt(siteId).put(type).putInt(version).putInt(keyId);
  }

  static OperatorInfo readFrom(ByteBuffer in) {
    return new OperatorInfo(in.getInt(), in.get(), in.getInt(), in.getInt());
  }
}

package dev.veil.core.token;

import java.nio.ByteBuffer;

/**
 * The publisher a token was issued to: site id (4 bytes), publisher id (8), client key id (4),
 * big-endian, {@value #BYTES} bytes in all. In an advertising token the site id is also the keyset
 * of the inner encryption key.
 */
public record PublisherInfo(int siteId, long publisherId, int clientKeyId) {
  /** Length on the wire in bytes. */
  public static final int BYTES = 16;

  void writeTo(ByteBuffer out) {
    out.putInt(siteId).putLong(publisherId).putInt(clientKeyId);
  }

  static PublisherInfo readFrom(ByteBuffer in) {
    return new PublisherInfo(in.getInt(), in.getLong(), in.getInt());
  }
}

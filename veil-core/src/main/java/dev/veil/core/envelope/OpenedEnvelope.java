package dev.veil.core.envelope;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;

/**
 * What an opened v2 envelope carries: the sender's timestamp, the 8-byte nonce and the payload
 * (UTF-8 JSON, not parsed here). Holds the decrypted bytes without copying them; {@link
 * #toString()} shows only the payload's length.
 */
public final class OpenedEnvelope {
  private final long timestampMillis;
  private final long nonce;
  private final byte[] plain;
  private final int payloadOffset;

  OpenedEnvelope(long timestampMillis, long nonce, byte[] plain, int payloadOffset) {
    this.timestampMillis = timestampMillis;
    this.nonce = nonce;
    this.plain = plain;
    this.payloadOffset = payloadOffset;
  }

  /** The sender's clock when it sealed the envelope, in epoch milliseconds as written. */
  public long timestampMillis() {
    return timestampMillis;
  }

  /** {@link #timestampMillis()} as an instant. */
  public Instant timestamp() {
    return Instant.ofEpochMilli(timestampMillis);
  }

  /**
   * The 8 nonce bytes, read as one big-endian {@code long} (every value is possible). A response
   * must echo the request's: pass this value to {@link V2Envelope#sealResponse}.
   */
  public long nonce() {
    return nonce;
  }

  /** The payload's length in bytes (0 for an empty payload). */
  public int payloadLength() {
    return plain.length - payloadOffset;
  }

  /**
   * The payload as a view of the decrypted bytes, not a copy: its backing array, from {@code
   * arrayOffset()} for {@code remaining()} bytes, can be handed to a parser as it is. Each call
   * returns a new buffer positioned at the payload's start.
   */
  public ByteBuffer payload() {
    return ByteBuffer.wrap(plain, payloadOffset, payloadLength()).slice();
  }

  /** A copy of the payload. */
  public byte[] payloadBytes() {
    return Arrays.copyOfRange(plain, payloadOffset, plain.length);
  }

  @Override
  public String toString() {
    return "OpenedEnvelope[payload=" + payloadLength() + " bytes]";
  }
}

package dev.veil.sdk.internal;

import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeException;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The client's side of UID2's v2 envelopes ({@code dev.veil.core.envelope} holds the byte layout):
 * seals a request body under the client's secret with a fresh nonce, and opens the answer, which
 * must carry that nonce. The answers of {@code /v2/token/refresh}, sealed under the refreshed
 * token's response key instead, are opened by {@link #refreshAnswer}.
 *
 * <p>An answer that cannot be opened (another secret, altered bytes, another nonce) is an {@link
 * IOException} whose message names only the reason; nothing of the secret or the body. Thread-safe.
 */
public final class V2Envelopes {
  /** Answers larger than this are refused unread: a key answer for thousands of sites fits. */
  private static final int MAX_ANSWER_BYTES = 16 << 20;

  private final EnvelopeSecret secret;
  private final Clock clock;
  private final NonceSource random;

  /**
   * @param secret the client's secret
   * @param clock whose time each request carries (the server refuses one two minutes off)
   * @param random draws the IVs and the nonces
   */
  public V2Envelopes(EnvelopeSecret secret, Clock clock, NonceSource random) {
    this.secret = Objects.requireNonNull(secret, "secret");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.random = Objects.requireNonNull(random, "random");
  }

  /**
   * Attempts of a request of {@code json} (UTF-8; empty for a request without parameters) for
   * {@link ApiCaller#call(String, Supplier)}: each is sealed anew, with the time and a fresh nonce,
   * and its answer is opened, checked to carry that nonce, and its JSON handed to {@code reader}.
   * The envelope is base64 text, as every v2 endpoint takes it.
   */
  public <T> Supplier<ApiCaller.Attempt<T>> sealed(byte[] json, ApiCaller.BodyReader<T> reader) {
    return sealed(V2Envelope.BASE64, json, reader);
  }

  /**
   * Like {@link #sealed(byte[], ApiCaller.BodyReader)}, with the envelope sent and answered as raw
   * bytes ({@code application/octet-stream}), which {@code /v3/identity/map} takes: no base64 on
   * either side, a quarter fewer bytes on the wire.
   */
  public <T> Supplier<ApiCaller.Attempt<T>> sealedBinary(
      byte[] json, ApiCaller.BodyReader<T> reader) {
    return sealed(V2Envelope.BINARY, json, reader);
  }

  private <T> Supplier<ApiCaller.Attempt<T>> sealed(
      V2Envelope format, byte[] json, ApiCaller.BodyReader<T> reader) {
    String contentType =
        format == V2Envelope.BINARY ? Transport.Request.BINARY : Transport.Request.JSON;
    return () -> {
      byte[] nonceBytes = new byte[Long.BYTES];
      random.nextBytes(nonceBytes);
      long nonce = ByteBuffer.wrap(nonceBytes).getLong();
      byte[] body = format.sealRequest(json, nonce, secret, clock.instant(), random);
      return new ApiCaller.Attempt<>(body, contentType, answer(format, nonce, reader));
    };
  }

  private <T> ApiCaller.BodyReader<T> answer(
      V2Envelope format, long nonce, ApiCaller.BodyReader<T> reader) {
    return in -> {
      byte[] payload;
      try {
        payload = format.openResponse(read(in), secret, nonce).payloadBytes();
      } catch (EnvelopeException e) {
        throw unopened(e);
      }
      return reader.read(new ByteArrayInputStream(payload));
    };
  }

  /**
   * A reader of a {@code /v2/token/refresh} answer, sealed under {@code responseKey} (the refreshed
   * token's {@code refresh_response_key}, standard base64 of 32 bytes).
   *
   * @throws IllegalArgumentException if {@code responseKey} is not base64 of 32 bytes (the message
   *     does not repeat it)
   */
  public static <T> ApiCaller.BodyReader<T> refreshAnswer(
      String responseKey, ApiCaller.BodyReader<T> json) {
    EnvelopeSecret key;
    try {
      key = EnvelopeSecret.fromBase64(responseKey);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "refreshResponseKey must be standard base64 of 32 bytes", null);
    }
    return in -> {
      byte[] payload;
      try {
        payload = V2Envelope.BASE64.openRefreshAnswer(read(in), key);
      } catch (EnvelopeException e) {
        throw unopened(e);
      }
      return json.read(new ByteArrayInputStream(payload));
    };
  }

  private static byte[] read(InputStream in) throws IOException {
    byte[] body = in.readNBytes(MAX_ANSWER_BYTES + 1);
    if (body.length > MAX_ANSWER_BYTES) {
      throw new IOException("the sealed answer is over " + MAX_ANSWER_BYTES + " bytes");
    }
    return body;
  }

  private static IOException unopened(EnvelopeException e) {
    return new IOException("the v2 answer cannot be opened: " + e.reason(), null);
  }

  @Override
  public String toString() {
    return "V2Envelopes[secret redacted]";
  }
}

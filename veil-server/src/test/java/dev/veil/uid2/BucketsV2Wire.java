package dev.veil.uid2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.ClientService.CreatedClient;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * {@code POST /v2/identity/buckets} as a client sees it: requests sealed with the client's secret,
 * answers opened with nothing but the JDK ({@link Base64#getDecoder()} and a {@link Cipher}), so a
 * fault shared by the server's sealing and opening code cannot hide.
 */
final class BucketsV2Wire {
  static final String PATH = "/v2/identity/buckets";

  private BucketsV2Wire() {}

  /** {@code json} sealed with {@code client}'s secret at the node's time: the body, as text. */
  static String seal(TestNode node, CreatedClient client, String json, long nonce) {
    byte[] sealed =
        V2Envelope.BASE64.sealRequest(
            json.getBytes(StandardCharsets.UTF_8),
            nonce,
            client.client().secret().envelopeKey(),
            node.clock().instant(),
            NonceSource.secure());
    return new String(sealed, StandardCharsets.US_ASCII);
  }

  /** The JSON body asking for the buckets rotated after {@code since}. */
  static String since(String since) {
    return "{\"since_timestamp\":\"" + since + "\"}";
  }

  /** The request for the buckets rotated after {@code since}, for {@link java.net.http}. */
  static HttpRequest request(TestNode node, CreatedClient client, String since, long nonce) {
    return HttpRequest.newBuilder(node.uri(PATH))
        .header("Authorization", Http.bearer(client.key().reveal()))
        .POST(HttpRequest.BodyPublishers.ofString(seal(node, client, since(since), nonce)))
        .build();
  }

  /** The same request as it goes on the wire (HTTP/1.1, head and body). */
  static byte[] rawRequest(TestNode node, CreatedClient client, String since, long nonce) {
    String body = seal(node, client, since(since), nonce);
    return ("POST "
            + PATH
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + client.key().reveal()
            + "\r\nContent-Length: "
            + body.length()
            + "\r\n\r\n"
            + body)
        .getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Opens a sealed answer with {@code client}'s secret, checks that it carries the node's time and
   * the request's nonce, and returns its JSON.
   */
  static byte[] open(byte[] text, TestNode node, CreatedClient client, long nonce) {
    byte[] raw = Base64.getDecoder().decode(text); // padding anywhere but at the end is refused
    byte[] secret = Base64.getDecoder().decode(client.client().secret().reveal());
    byte[] plain;
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(
          Cipher.DECRYPT_MODE,
          new SecretKeySpec(secret, "AES"),
          new GCMParameterSpec(128, raw, 0, 12));
      plain = cipher.doFinal(raw, 12, raw.length - 12);
    } catch (GeneralSecurityException e) {
      throw new AssertionError("the answer does not open with the client's secret", e);
    }
    ByteBuffer header = ByteBuffer.wrap(plain, 0, 16);
    assertThat(Instant.ofEpochMilli(header.getLong())).isEqualTo(node.clock().instant());
    assertThat(header.getLong()).as("nonce").isEqualTo(nonce);
    return Arrays.copyOfRange(plain, 16, plain.length);
  }
}

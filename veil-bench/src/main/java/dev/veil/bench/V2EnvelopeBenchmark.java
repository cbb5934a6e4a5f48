package dev.veil.bench;

import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.OpenedEnvelope;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.core.token.AdvertisingTokenPayload;
import dev.veil.core.token.EncryptionKey;
import dev.veil.core.token.KeyLookup;
import dev.veil.core.token.OperatorInfo;
import dev.veil.core.token.PublisherInfo;
import dev.veil.core.token.RefreshTokenCodec;
import dev.veil.core.token.RefreshTokenPayload;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What a v2 token call costs the server beyond its v1 twin, step by step, with production
 * randomness ({@link NonceSource#secure()}) and the server's clock: opening the request envelope of
 * a generate body, sealing the generate answer, the {@code refresh_response_key} (an HMAC), and
 * sealing a refresh answer under that key. Each step is measured as the codec call alone, and where
 * the server wraps it in Vert.x buffers ({@code V2Requests}, {@code TokenEndpoints.sealUnder}) also
 * as the server calls it ({@code …AsServer}: their buffer handling is repeated here, as those
 * classes are package-private); the base64 and the IV are measured on their own too. {@link
 * #generateAdds} and {@link #refreshAdds} are everything a v2 generate or refresh adds.
 *
 * <p>The request body is the one {@code bench/v2-tokens.sh} sends (51 bytes of JSON; 128 characters
 * sealed), sealed again before each iteration so that its timestamp stays within the server's
 * window. The answer is built as {@code TokenEndpoints.tokensAnswer} writes it, with tokens from
 * the production codecs (621 bytes of JSON; 888 characters sealed).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class V2EnvelopeBenchmark {
  /** The body {@code bench/v2-tokens.sh} posts to v1 and, sealed, to v2. */
  static final byte[] GENERATE_BODY =
      "{\"email\":\"bench.user@example.com\",\"optout_check\":1}".getBytes(StandardCharsets.UTF_8);

  private static final int SITE_ID = 7;
  private static final OperatorInfo OPERATOR = new OperatorInfo(0, (byte) 'P', 1, 0);
  private static final PublisherInfo PUBLISHER = new PublisherInfo(SITE_ID, 0L, 11);

  private final NonceSource ivs = NonceSource.secure();
  private final Clock clock = Clock.systemUTC();
  private final SplittableRandom random = new SplittableRandom(42);

  /** The client's secret: made once per client, as {@code ClientSecret} keeps it. */
  private EnvelopeSecret secret;

  private KeyLookup keys;
  private String refreshToken;
  private byte[] responseKey;
  private long nonce;
  private byte[] answer;
  private Buffer answerBuffer;
  private byte[] sealedAnswerRaw;
  private byte[] requestBody;
  private byte[] requestRaw;
  private Buffer requestBuffer;

  @Setup(Level.Trial)
  public void setUp() {
    Instant now = Instant.now();
    secret = EnvelopeSecret.of(bytes(EnvelopeSecret.BYTES));
    EncryptionKey master = key(1, EncryptionKey.MASTER_SITE_ID, now);
    EncryptionKey refreshKey = key(2, EncryptionKey.REFRESH_SITE_ID, now);
    EncryptionKey site = key(3, SITE_ID, now);
    keys = id -> id == 1 ? master : id == 2 ? refreshKey : id == 3 ? site : null;
    String advertisingToken =
        new AdvertisingTokenCodec(ivs)
            .encode(
                new AdvertisingTokenPayload(
                    IdentityType.EMAIL,
                    now.plus(Duration.ofHours(4)),
                    now,
                    OPERATOR,
                    PUBLISHER,
                    0,
                    now,
                    now,
                    bytes(32)),
                master,
                site);
    refreshToken =
        new RefreshTokenCodec(ivs)
            .encode(
                new RefreshTokenPayload(
                    IdentityType.EMAIL,
                    now.plus(Duration.ofDays(30)),
                    now,
                    OPERATOR,
                    PUBLISHER,
                    0,
                    now,
                    bytes(32)),
                refreshKey);
    responseKey = RefreshTokenCodec.responseKey(refreshToken, keys);
    answer = tokensAnswer(advertisingToken, refreshToken, now, responseKey);
    // As TokenEndpoints hands its answer over: the array wrapped, not copied (JsonBytes.toBuffer).
    answerBuffer = BufferInternal.buffer(Unpooled.wrappedBuffer(answer));
    nonce = random.nextLong();
    sealedAnswerRaw = V2Envelope.BINARY.sealResponse(answer, nonce, secret, now, ivs);
  }

  /** A request sealed now: the server refuses one older than two minutes. */
  @Setup(Level.Iteration)
  public void sealRequest() {
    requestBody =
        V2Envelope.BASE64.sealRequest(
            GENERATE_BODY, random.nextLong(), secret, clock.instant(), ivs);
    requestRaw = Base64.getDecoder().decode(requestBody);
    // As BodyReader hands the body over: a heap buffer the chunks were appended to.
    requestBuffer = Buffer.buffer(requestBody.length).appendBytes(requestBody);
  }

  /** Opens the base64 request envelope: decode, AES-256-GCM decrypt, check the timestamp. */
  @Benchmark
  public OpenedEnvelope openRequest() {
    return V2Envelope.BASE64.openRequest(
        requestBody, secret, clock.instant(), V2Envelope.UID2_ALLOWED_SKEW);
  }

  /** {@link #openRequest} without the base64: the same envelope's bytes. */
  @Benchmark
  public OpenedEnvelope openRequestBinary() {
    return V2Envelope.BINARY.openRequest(
        requestRaw, secret, clock.instant(), V2Envelope.UID2_ALLOWED_SKEW);
  }

  /** The request's base64 alone (128 characters to 96 bytes). */
  @Benchmark
  public byte[] base64DecodeRequest() {
    return Base64.getDecoder().decode(requestBody);
  }

  /**
   * What {@code V2Requests.handle} does: the body's bytes, opened, the payload as a buffer over the
   * decrypted array ({@code V2Requests.payload}).
   */
  @Benchmark
  public Buffer openRequestAsServer() {
    OpenedEnvelope opened =
        V2Envelope.BASE64.openRequest(
            requestBuffer.getBytes(), secret, clock.instant(), V2Envelope.UID2_ALLOWED_SKEW);
    return BufferInternal.buffer(Unpooled.wrappedBuffer(opened.payload()));
  }

  /** Seals the generate answer: IV, AES-256-GCM in place, base64. */
  @Benchmark
  public byte[] sealGenerateAnswer() {
    return V2Envelope.BASE64.sealResponse(answer, nonce, secret, clock.instant(), ivs);
  }

  /** {@link #sealGenerateAnswer} without the base64. */
  @Benchmark
  public byte[] sealGenerateAnswerBinary() {
    return V2Envelope.BINARY.sealResponse(answer, nonce, secret, clock.instant(), ivs);
  }

  /** The sealed answer's base64 alone (666 bytes to 888 characters). */
  @Benchmark
  public byte[] base64EncodeAnswer() {
    return Base64.getEncoder().encode(sealedAnswerRaw);
  }

  /** A fresh 12-byte IV from the production source, which every seal draws. */
  @Benchmark
  public byte[] iv() {
    byte[] iv = new byte[12];
    ivs.nextBytes(iv);
    return iv;
  }

  /** What the exchange's sealer of {@code V2Requests} does with a 200 answer. */
  @Benchmark
  public Buffer sealGenerateAnswerAsServer() {
    return wrap(
        V2Envelope.BASE64.sealResponse(
            answerBuffer.getBytes(), nonce, secret, clock.instant(), ivs));
  }

  /** The {@code refresh_response_key} of a refresh token: base64, key lookup, HMAC-SHA256. */
  @Benchmark
  public byte[] responseKey() {
    return RefreshTokenCodec.responseKey(refreshToken, keys);
  }

  /**
   * Seals a refresh answer as {@code TokenEndpoints.sealUnder} does: a new key object for the
   * token's response key (each refresh has its own, so each re-keys a cipher), then the answer.
   */
  @Benchmark
  public Buffer sealRefreshAnswerAsServer() {
    EnvelopeSecret key = EnvelopeSecret.of(responseKey);
    return wrap(V2Envelope.BASE64.sealRefreshAnswer(answerBuffer.getBytes(), key, ivs));
  }

  /** {@link #sealRefreshAnswerAsServer} under one key object kept across calls: no re-keying. */
  @Benchmark
  public byte[] sealRefreshAnswerSameKey() {
    return V2Envelope.BASE64.sealRefreshAnswer(answer, secret, ivs);
  }

  /** All a v2 generate adds: open the request, the new token's response key, seal the answer. */
  @Benchmark
  public void generateAdds(Blackhole bh) {
    bh.consume(openRequestAsServer());
    bh.consume(responseKey());
    bh.consume(sealGenerateAnswerAsServer());
  }

  /**
   * All a v2 refresh adds: the presented token's response key, the new token's, and the answer
   * sealed under the first (it saves the JSON parse of v1's body, not counted here).
   */
  @Benchmark
  public void refreshAdds(Blackhole bh) {
    bh.consume(responseKey());
    bh.consume(sealRefreshAnswerAsServer());
    bh.consume(responseKey());
  }

  /** A sealed body as {@code V2Requests.wrap} hands it to Vert.x: the array, not a copy. */
  private static Buffer wrap(byte[] sealed) {
    return BufferInternal.buffer(Unpooled.wrappedBuffer(sealed));
  }

  /** The answer as {@code TokenEndpoints.tokensAnswer} writes it for v2. */
  private static byte[] tokensAnswer(
      String advertisingToken, String refreshToken, Instant now, byte[] responseKey) {
    String json =
        "{\"status\":\"success\",\"body\":{\"advertising_token\":\""
            + advertisingToken
            + "\",\"refresh_token\":\""
            + refreshToken
            + "\",\"identity_expires\":"
            + now.plus(Duration.ofHours(4)).toEpochMilli()
            + ",\"refresh_from\":"
            + now.plus(Duration.ofHours(1)).toEpochMilli()
            + ",\"refresh_expires\":"
            + now.plus(Duration.ofDays(30)).toEpochMilli()
            + ",\"refresh_response_key\":\""
            + Base64.getEncoder().encodeToString(responseKey)
            + "\"}}";
    return json.getBytes(StandardCharsets.US_ASCII);
  }

  private EncryptionKey key(int id, int siteId, Instant now) {
    return new EncryptionKey(
        id,
        siteId,
        now.minus(Duration.ofDays(1)),
        now.minus(Duration.ofDays(1)),
        now.plus(Duration.ofDays(30)),
        bytes(32));
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }
}

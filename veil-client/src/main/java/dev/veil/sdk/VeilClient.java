package dev.veil.sdk;

import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.sdk.internal.ApiCaller;
import dev.veil.sdk.internal.Durations;
import dev.veil.sdk.internal.Endpoint;
import dev.veil.sdk.internal.Jitter;
import dev.veil.sdk.internal.Sleeper;
import dev.veil.sdk.internal.Transport;
import dev.veil.sdk.internal.V2Envelopes;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.DoubleSupplier;

/**
 * The entry point: one configured connection to a Veil server, from which the role clients are
 * taken.
 *
 * <pre>{@code
 * VeilClient veil = VeilClient.builder()
 *     .baseUrl("https://veil.example.com")
 *     .apiKey(System.getenv("VEIL_API_KEY"))
 *     .build();
 *
 * PublisherClient publisher = veil.publisher();        // GENERATOR role: generate, refresh
 * IdentityMapClient mapper = veil.mapper();            // MAPPER role: map, rotated buckets
 * MappingCache cache = veil.mappingCache(Path.of("mappings.db")).build();   // MAPPER role
 * TokenDecryptor decryptor = veil.tokenDecryptor().build();                 // ID_READER role
 * }</pre>
 *
 * <p>Given the client's secret ({@link Builder#clientSecret}), the publisher and the token
 * decryptor speak UID2's v2 API, whose bodies are encrypted under it; without one they use v1. The
 * package's user guide says which calls each API makes.
 *
 * <p>Every request runs with a timeout and, after a transport failure or a 429 or 503 answer, is
 * retried under the {@link RetryPolicy}. Failures surface as {@link VeilApiException} (the server
 * said no) or {@link VeilTransportException} (no answer); see {@link VeilClientException}.
 *
 * <p>Requests go over HTTP/1.1 on a few kept-alive connections of the client's own (plain sockets,
 * or TLS with the JDK's default trust store), which costs far less CPU per mapped identifier than
 * the JDK's {@code HttpClient}. Pass an {@code HttpClient} to {@link Builder#httpClient} to use it
 * instead (for custom TLS settings or an authenticator); it is also used when the JVM's proxy
 * settings name a proxy for the server.
 *
 * <p>Immutable and thread-safe: build one per server and key, share it, and take as many role
 * clients from it as you like (they are cheap views). It holds no resources that need closing: idle
 * connections are few and are closed by the server after its idle timeout.
 */
public final class VeilClient {
  /** The most identifiers a single {@code POST /v1/identity/map} may carry (the server's limit). */
  public static final int MAX_BATCH_SIZE = 5_000;

  /** Request bodies are kept under the server's default 1 MiB limit, with room to spare. */
  public static final int MAX_BATCH_BYTES = 1_000_000;

  /**
   * How long a connection may take to open unless {@link Builder#connectTimeout} says otherwise.
   */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

  /**
   * How long a request may wait for its answer unless {@link Builder#requestTimeout} says
   * otherwise.
   */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private final ApiCaller caller;
  private final Transport transport;

  /** The policy given to the builder, or null when it was left at its default. */
  private final RetryPolicy givenRetryPolicy;

  private final Sleeper sleeper;
  private final DoubleSupplier random;
  private final String apiKey;
  private final String baseUrl;
  private final boolean hashIdentifiers;
  private final int batchSize;
  private final int batchBytes;

  /** Seals and opens v2 envelopes under the client's secret; null without a secret (v1). */
  private final V2Envelopes v2;

  private VeilClient(Builder b) {
    this.baseUrl = b.baseUrl;
    this.transport =
        b.transport != null
            ? b.transport
            : Transport.forUrl(b.baseUrl, b.httpClient, b.connectTimeout, b.requestTimeout);
    this.caller = new ApiCaller(transport, b.retryPolicy, b.sleeper, b.random, b.apiKey);
    this.givenRetryPolicy = b.retryPolicySet ? b.retryPolicy : null;
    this.sleeper = b.sleeper;
    this.random = b.random;
    this.apiKey = b.apiKey;
    this.hashIdentifiers = b.hashIdentifiers;
    this.batchSize = b.batchSize;
    this.batchBytes = b.batchBytes;
    this.v2 =
        b.clientSecret == null
            ? null
            : new V2Envelopes(b.clientSecret, b.envelopeClock, NonceSource.secure());
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Generate and refresh token pairs (publishers, server side). */
  public PublisherClient publisher() {
    return new PublisherClient(this);
  }

  /** Map identifiers to advertising ids and list rotated buckets (data collectors). */
  public IdentityMapClient mapper() {
    return new IdentityMapClient(this);
  }

  /** A builder for a {@link MappingCache} stored in {@code file} that maps through this client. */
  public MappingCache.Builder mappingCache(Path file) {
    return MappingCache.builder(this, file);
  }

  /** A builder for a {@link TokenDecryptor} that fetches keys through this client (bidders). */
  public TokenDecryptor.Builder tokenDecryptor() {
    return TokenDecryptor.builder(this);
  }

  /** The server's base URL, without a trailing slash. */
  public String baseUrl() {
    return baseUrl;
  }

  ApiCaller caller() {
    return caller;
  }

  /** The v2 envelopes under the client's secret; empty when no secret was given (v1). */
  Optional<V2Envelopes> v2() {
    return Optional.ofNullable(v2);
  }

  /** The retry policy given to {@link Builder#retryPolicy}, if one was. */
  Optional<RetryPolicy> givenRetryPolicy() {
    return Optional.ofNullable(givenRetryPolicy);
  }

  /**
   * A caller on this client's connections and key with retries of its own: {@code policy} until a
   * call of its has been answered, {@code afterAnswer} from then on.
   */
  ApiCaller caller(RetryPolicy policy, RetryPolicy afterAnswer) {
    return new ApiCaller(transport, policy, afterAnswer, sleeper, random, apiKey);
  }

  boolean hashIdentifiers() {
    return hashIdentifiers;
  }

  int batchSize() {
    return batchSize;
  }

  int batchBytes() {
    return batchBytes;
  }

  @Override
  public String toString() {
    return "VeilClient{"
        + baseUrl
        + ", apiKey="
        + (caller.hasApiKey() ? "<set>" : "<none>")
        + (v2 != null ? ", v2" : "")
        + "}";
  }

  /** Configures a {@link VeilClient}; only {@link #baseUrl} is required. Not thread-safe. */
  public static final class Builder {
    private String baseUrl;
    private String apiKey;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private RetryPolicy retryPolicy = RetryPolicy.defaults();
    private boolean retryPolicySet;
    private boolean hashIdentifiers;
    private int batchSize = MAX_BATCH_SIZE;
    private int batchBytes = MAX_BATCH_BYTES;
    private HttpClient httpClient;
    private Transport transport;
    private Sleeper sleeper = Sleeper.THREAD_SLEEP;
    private DoubleSupplier random = Jitter.UNIFORM;
    private EnvelopeSecret clientSecret;
    private Clock envelopeClock = Clock.systemUTC();

    private Builder() {}

    /** The server, e.g. {@code http://127.0.0.1:8080} (http or https; a path prefix is kept). */
    public Builder baseUrl(String baseUrl) {
      this.baseUrl = Endpoint.baseUrl(baseUrl);
      return this;
    }

    /**
     * The API key, sent as {@code Authorization: Bearer <key>}. Its client's roles decide what it
     * may do: {@code GENERATOR} (generate), {@code MAPPER} (map, buckets), {@code ID_READER}
     * (decryption keys). Refresh works without one; with one, refresh tells an expired token from
     * an invalid one.
     */
    public Builder apiKey(String apiKey) {
      this.apiKey = Endpoint.apiKey(apiKey);
      return this;
    }

    /**
     * The client's secret, as {@code veil admin client create} prints it (standard base64 of 32
     * bytes; UID2 calls it the secret key). With it, the publisher and the token decryptor use
     * UID2's v2 API, whose request and answer bodies are encrypted under it; null (the default)
     * keeps them on v1. A {@link MappingCache} maps over v3 with it ({@code /v3/identity/map} and
     * {@code /v2/optout/status}); {@link IdentityMapClient} stays on v1 either way. The secret is
     * kept as a key object only: no method or {@code toString()} shows it.
     *
     * @throws IllegalArgumentException if it is not standard base64 of exactly 32 bytes (the
     *     message does not repeat it)
     */
    public Builder clientSecret(String clientSecret) {
      if (clientSecret == null) {
        this.clientSecret = null;
        return this;
      }
      try {
        this.clientSecret = EnvelopeSecret.fromBase64(clientSecret.strip());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "clientSecret must be standard base64 of 32 bytes, as veil admin client create"
                + " prints it",
            null);
      }
      return this;
    }

    /** How long to wait for a TCP connection, 1 ms to 24 days (default 10 s). */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = Durations.timeout(connectTimeout, "connectTimeout");
      return this;
    }

    /** How long to wait for each answer's headers, per attempt, 1 ms to 24 days (default 30 s). */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = Durations.timeout(requestTimeout, "requestTimeout");
      return this;
    }

    /**
     * When to retry (default {@link RetryPolicy#defaults()}). A {@link MappingCache} built from a
     * client given a policy here uses it too; without one, the cache's runs wait out rate limits
     * and restarts ({@link MappingCache.Builder#retryPolicy}).
     */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
      this.retryPolicySet = true;
      return this;
    }

    /**
     * Send only hashes: emails and phones are normalized and SHA-256 hashed here before any request
     * carries them (default false: values are sent as given). Results still name the identifiers as
     * the caller gave them.
     */
    public Builder hashIdentifiers(boolean hashIdentifiers) {
      this.hashIdentifiers = hashIdentifiers;
      return this;
    }

    /** Identifiers per mapping request, 1 to {@value VeilClient#MAX_BATCH_SIZE} (the default). */
    public Builder batchSize(int batchSize) {
      if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
        throw new IllegalArgumentException("batchSize must be 1 to " + MAX_BATCH_SIZE);
      }
      this.batchSize = batchSize;
      return this;
    }

    /**
     * Send requests with this JDK client instead of the client's own connections: for TLS settings
     * of your own, an authenticator, or a proxy selector. It costs more CPU per request.
     */
    public Builder httpClient(HttpClient httpClient) {
      this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
      return this;
    }

    /** Tests: replace the network. */
    Builder transport(Transport transport) {
      this.transport = transport;
      return this;
    }

    /** Tests: record waits instead of sleeping. */
    Builder sleeper(Sleeper sleeper) {
      this.sleeper = sleeper;
      return this;
    }

    /** Tests: fix the jitter. */
    Builder random(DoubleSupplier random) {
      this.random = random;
      return this;
    }

    /** Tests: the clock whose time v2 requests carry. */
    Builder envelopeClock(Clock envelopeClock) {
      this.envelopeClock = envelopeClock;
      return this;
    }

    /** Tests: smaller request bodies. */
    Builder batchBytes(int batchBytes) {
      this.batchBytes = batchBytes;
      return this;
    }

    /**
     * The client, with the settings given so far.
     *
     * @throws IllegalStateException if no base URL was set
     */
    public VeilClient build() {
      if (baseUrl == null) {
        throw new IllegalStateException("baseUrl is required");
      }
      return new VeilClient(this);
    }
  }
}

package dev.veil.sdk.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.veil.sdk.RetryPolicy;
import dev.veil.sdk.VeilApiException;
import dev.veil.sdk.VeilTransportException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Optional;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * Sends a request through a {@link Transport} and applies the client's error contract: a 2xx answer
 * is handed to the caller's reader; any other answer becomes a {@link VeilApiException}; no answer
 * becomes a {@link VeilTransportException}. Transport failures (an {@link IOException} while
 * sending or while reading the body) and the answers 429 and 503 are retried under the {@link
 * RetryPolicy} (429 up to its {@link RetryPolicy#rateLimitedAttempts}); nothing else is.
 * Thread-safe.
 */
public final class ApiCaller {
  /** Reads a 2xx answer's body. It may be called again on a retry and must then start over. */
  @FunctionalInterface
  public interface BodyReader<T> {
    T read(InputStream body) throws IOException;
  }

  /**
   * One attempt's request body and the reader of its answer.
   *
   * @param body the JSON, or what a v2 envelope makes of it; null for {@code GET}
   * @param contentType the body's media type; null for {@code GET}
   */
  @SuppressWarnings("ArrayRecordComponent") // its array is never compared
  public record Attempt<T>(byte[] body, String contentType, BodyReader<T> reader) {
    /** An attempt of {@code body}, JSON or a v2 envelope's base64 text (null for {@code GET}). */
    public Attempt(byte[] body, BodyReader<T> reader) {
      this(body, body == null ? null : Transport.Request.JSON, reader);
    }
  }

  private static final int MAX_ERROR_BODY = 64 * 1024;

  private final Transport transport;
  private final RetryPolicy policy;

  /**
   * The policy once a call has been answered (the server was reachable): {@link #policy} unless
   * given.
   */
  private final RetryPolicy afterAnswer;

  /** Whether any call has had a 2xx answer. */
  private volatile boolean answered;

  private final Sleeper sleeper;
  private final DoubleSupplier random;
  private final String apiKey;

  public ApiCaller(
      Transport transport,
      RetryPolicy policy,
      Sleeper sleeper,
      DoubleSupplier random,
      String apiKey) {
    this(transport, policy, policy, sleeper, random, apiKey);
  }

  /**
   * @param policy the retries until a call has been answered
   * @param afterAnswer the retries from the first 2xx answer on, also of calls under way: a bulk
   *     job can say at once that a server it never reached is not there, yet wait out a restart of
   *     one that has been answering
   */
  public ApiCaller(
      Transport transport,
      RetryPolicy policy,
      RetryPolicy afterAnswer,
      Sleeper sleeper,
      DoubleSupplier random,
      String apiKey) {
    this.transport = transport;
    this.policy = policy;
    this.afterAnswer = afterAnswer;
    this.sleeper = sleeper;
    this.random = random;
    this.apiKey = apiKey;
  }

  /** Whether an API key is configured. */
  public boolean hasApiKey() {
    return apiKey != null;
  }

  /**
   * Sends {@code GET pathAndQuery} (when {@code jsonBody} is null) or {@code POST} of the JSON and
   * returns what {@code reader} makes of the 2xx answer.
   *
   * @throws VeilApiException for any non-2xx answer (after retries for 429 and 503)
   * @throws VeilTransportException when no answer could be read (after retries)
   */
  public <T> T call(String pathAndQuery, byte[] jsonBody, BodyReader<T> reader) {
    Attempt<T> same = new Attempt<>(jsonBody, reader);
    return call(pathAndQuery, () -> same);
  }

  /**
   * Like {@link #call(String, byte[], BodyReader)}, with a body and reader made anew for each
   * attempt: a v2 envelope carries its time and a nonce, so a retry after a long wait is sealed
   * again rather than sent stale.
   */
  public <T> T call(String pathAndQuery, Supplier<Attempt<T>> newAttempt) {
    for (int attempt = 1; ; attempt++) {
      Attempt<T> exchange = newAttempt.get();
      Transport.Request request =
          new Transport.Request(pathAndQuery, exchange.body(), exchange.contentType(), apiKey);
      Duration retryAfter = null;
      try (Transport.Response response = transport.send(request)) {
        int status = response.status();
        if (status >= 200 && status < 300) {
          T answer = exchange.reader().read(response.body());
          if (!answered) {
            answered = true;
          }
          return answer;
        }
        VeilApiException refused = refusal(status, response.body(), attempt);
        RetryPolicy policy = policy();
        int attempts = status == 429 ? policy.rateLimitedAttempts() : policy.maxAttempts();
        if (!refused.isRetryable() || attempt >= attempts) {
          throw refused;
        }
        retryAfter = retryAfter(response.header("Retry-After"));
      } catch (IOException e) {
        if (Thread.currentThread().isInterrupted()) { // interrupted during the attempt: no retry
          throw new VeilTransportException(request + " interrupted", e, attempt);
        }
        if (attempt >= policy().maxAttempts()) {
          throw new VeilTransportException(
              request + " failed after " + attempt + " attempt(s): " + describe(e), e, attempt);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new VeilTransportException(request + " interrupted", e, attempt);
      }
      pause(policy().backoff(attempt, random.getAsDouble(), retryAfter), request, attempt);
    }
  }

  /** The retry policy now: read at each failure, so a call under way gets the later one too. */
  private RetryPolicy policy() {
    return answered ? afterAnswer : policy;
  }

  private void pause(Duration wait, Transport.Request request, int attempt) {
    try {
      sleeper.sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new VeilTransportException(request + " interrupted while waiting to retry", e, attempt);
    }
  }

  private static VeilApiException refusal(int status, InputStream body, int attempt)
      throws IOException {
    byte[] bytes = body.readNBytes(MAX_ERROR_BODY);
    Envelopes.ErrorEnvelope envelope = Envelopes.error(bytes);
    String word = envelope.status() == null ? "unknown" : envelope.status();
    String message =
        envelope.message() == null
            ? "HTTP " + status + " without a Veil error message"
            : envelope.message();
    return new VeilApiException(status, word, message, attempt);
  }

  /** {@code Retry-After} in delta-seconds; an HTTP date or garbage is ignored. */
  static Duration retryAfter(Optional<String> header) {
    if (header.isEmpty()) {
      return null;
    }
    try {
      long seconds = Long.parseLong(header.get().trim());
      return seconds >= 0 ? Duration.ofSeconds(Math.min(seconds, 3600)) : null;
    } catch (NumberFormatException notSeconds) {
      return null;
    }
  }

  private static String describe(IOException e) {
    if (e instanceof JsonProcessingException) {
      return "the answer is not the expected JSON"; // Jackson's message may quote the body
    }
    String message = e.getMessage();
    return e.getClass().getSimpleName() + (message == null ? "" : " (" + message + ")");
  }
}

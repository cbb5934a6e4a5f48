package dev.veil.http;

import dev.veil.common.ApiProfile;
import dev.veil.common.ErrorCode;
import dev.veil.common.StoreUnavailableException;
import dev.veil.common.VeilException;
import dev.veil.config.DurationFormat;
import dev.veil.core.identity.InvalidIdentifierException;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that turns a refusal into an HTTP answer: {@link ErrorCode} to status code and
 * {@code status} word (docs/spec.md 1.1, with the profile's spelling of {@code clienterror}), plus
 * the answers the route table and the HTTP decoder produce (unknown path, wrong method, oversized
 * or malformed request head). Every error body is {@code {"status":…,"message":…}}.
 *
 * <p>Messages come from {@link VeilException}s, which never carry input data except the refresh
 * token echo that docs/spec.md 1.4 demands. Unexpected exceptions answer a fixed message and are
 * logged by class and stack frames only: exception messages may quote input (a JSON parser's does).
 */
final class ErrorResponses {
  static final String INVALID_IDENTIFIER = "Invalid Identifier";
  private static final Logger LOG = LoggerFactory.getLogger(ErrorResponses.class);
  private static final int MAX_LOGGED_FRAMES = 12;

  private ErrorResponses() {}

  /** Answers {@code failure}, whatever it is; never throws. */
  static void send(Exchange ex, Throwable failure) {
    if (failure instanceof VeilException e) {
      send(ex, e.code(), e.getMessage());
    } else if (failure instanceof InvalidIdentifierException) {
      send(ex, ErrorCode.CLIENT_ERROR, INVALID_IDENTIFIER);
    } else if (failure instanceof StoreUnavailableException) {
      // The message names the operation, the store and the database's error class, never input.
      LOG.warn(
          "event=store_unavailable route={} detail=\"{}\"", ex.routeName(), failure.getMessage());
      send(ex, ErrorCode.UNAVAILABLE, "Store unavailable, try again later");
    } else {
      LOG.error("event=request_failed route={} error={}", ex.routeName(), describe(failure));
      send(ex, ErrorCode.INTERNAL, "Internal server error");
    }
  }

  static void send(Exchange ex, ErrorCode code, String message) {
    HttpServerResponse response = ex.response();
    if (code == ErrorCode.RATE_LIMITED) {
      response.putHeader(HttpHeaders.RETRY_AFTER, "1");
    } else if (code == ErrorCode.UNAUTHORIZED) {
      response.putHeader("WWW-Authenticate", "Bearer");
    }
    ex.sendJson(httpStatus(code), Envelope.failure(statusWord(code, ex.profile()), message));
  }

  static int httpStatus(ErrorCode code) {
    return switch (code) {
      case CLIENT_ERROR, INVALID_TOKEN, EXPIRED_TOKEN, REFRESH_ERROR -> 400;
      case UNAUTHORIZED -> 401;
      case NOT_FOUND -> 404;
      case PAYLOAD_TOO_LARGE -> 413;
      case RATE_LIMITED -> 429;
      case UNAVAILABLE -> 503;
      case INTERNAL -> 500;
    };
  }

  static String statusWord(ErrorCode code, ApiProfile profile) {
    return switch (code) {
      case CLIENT_ERROR, PAYLOAD_TOO_LARGE, RATE_LIMITED -> profile.clientErrorStatus();
      case UNAUTHORIZED -> "unauthorized";
      case INVALID_TOKEN -> "invalid_token";
      case EXPIRED_TOKEN -> "expired_token";
      case REFRESH_ERROR -> "error";
      case NOT_FOUND -> "not_found";
      case UNAVAILABLE, INTERNAL -> "unknown";
    };
  }

  /** 404 for a path no route serves. */
  static void unknownPath(Exchange ex) {
    ex.sendJson(404, Envelope.failure("unknown_path", "Unknown path"));
  }

  /**
   * 408 for a request whose body did not arrive whole within {@code http.body-timeout} of its head
   * ({@link ListenerConnections}); the connection closes after it, as after any answer sent before
   * the body was read ({@link Exchange#send}).
   */
  static void bodyTimeout(Exchange ex, Duration timeout) {
    ex.sendJson(
        408,
        Envelope.failure(
            ex.profile().clientErrorStatus(),
            "Request timeout: the body did not arrive within "
                + DurationFormat.format(timeout)
                + " of the headers"));
  }

  /** 405 for a known path called with a method it does not serve. */
  static void methodNotAllowed(Exchange ex, String allowed) {
    ex.response().putHeader(HttpHeaders.ALLOW, allowed);
    ex.sendJson(405, Envelope.failure("method_not_allowed", "Method not allowed; use " + allowed));
  }

  /**
   * The answer to a request the HTTP decoder rejected (request line or headers too long, malformed
   * head, a version other than HTTP/1.1 and HTTP/1.0); the connection is closed after it because
   * its framing can no longer be trusted.
   */
  static int invalidRequest(HttpServerRequest request, ApiProfile profile) {
    DecoderResult result = request.decoderResult();
    Throwable cause = result == null ? null : result.cause();
    if (cause instanceof TooLongHttpHeaderException) {
      return malformed(request, profile, 431, "Request header fields too large");
    } else if (cause instanceof TooLongHttpLineException) {
      return malformed(request, profile, 414, "Request line too long");
    } else if (cause instanceof StrictRequestDecoder.UnknownVersion) {
      return malformed(
          request,
          profile,
          400,
          "Malformed HTTP request: the version must be HTTP/1.1 or HTTP/1.0");
    }
    return malformed(request, profile, 400, "Malformed HTTP request");
  }

  /**
   * The refusal of a body whose chunked framing the HTTP decoder rejected ({@link
   * StrictRequestDecoder}): what was read of it is not the body the client meant.
   */
  static VeilException malformedBody(Throwable cause) {
    return VeilException.clientError(
        cause instanceof StrictRequestDecoder.ChunkSizeTooLarge
            ? "Malformed HTTP request: chunk size too large"
            : "Malformed HTTP request: invalid chunked body");
  }

  /**
   * Answers a request whose head is unusable and closes the connection at once: what follows the
   * head on it cannot be trusted to be this request's body or the next request.
   */
  static int malformed(HttpServerRequest request, ApiProfile profile, int status, String message) {
    ConnectionClose.mark(request);
    request
        .response()
        .setStatusCode(status)
        .putHeader(HttpHeaders.CONTENT_TYPE, Exchange.JSON_CONTENT_TYPE)
        .putHeader(HttpHeaders.CONNECTION, "close")
        .end(Envelope.failure(profile.clientErrorStatus(), message))
        .onComplete(done -> ConnectionClose.now(request));
    return status;
  }

  /** Exception classes and stack frames, without messages (which may quote input). */
  static String describe(Throwable failure) {
    StringBuilder out = new StringBuilder();
    Throwable t = failure;
    for (int depth = 0; t != null && depth < 4; depth++, t = t.getCause()) {
      out.append(depth == 0 ? "" : " caused by ").append(t.getClass().getName());
      StackTraceElement[] frames = t.getStackTrace();
      for (int i = 0; i < Math.min(frames.length, MAX_LOGGED_FRAMES); i++) {
        out.append(" at ").append(frames[i]);
      }
    }
    return out.toString();
  }
}

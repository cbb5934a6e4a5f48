package dev.veil.http;

import dev.veil.client.ApiClient;
import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.core.identity.IdentityHash;
import dev.veil.token.GenerateOutcome;
import dev.veil.token.IdentityTokens;
import dev.veil.token.RefreshOutcome;
import dev.veil.token.TokenService;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@code /v1/token/generate}, {@code /v1/token/refresh} and {@code /v1/token/validate}
 * (docs/spec.md 1.3 to 1.5): translate parameters into {@link TokenService} calls and outcomes into
 * answers. Each method serves both the GET (query) and the POST (JSON body) form. Also v2's
 * generate and refresh (docs/http-api.md, "The v2 API"): v1's tokens, with a {@code
 * refresh_response_key} added to the answer.
 */
final class TokenEndpoints {
  static final String REFRESH_TOKEN = "refresh_token";
  static final String REFRESH_TOKEN_MISSING = "Required Parameter Missing: refresh_token";
  static final String UNENCODED_PLUS =
      "Invalid refresh_token: it holds a space, which is how a '+' arrives that was not"
          + " percent-encoded; send + as %2B";
  private static final byte[] TOKENS_HEAD =
      JsonBytes.ascii("{\"status\":\"success\",\"body\":{\"advertising_token\":\"");
  private static final byte[] REFRESH_TOKEN_FIELD = JsonBytes.ascii("\",\"refresh_token\":\"");
  private static final byte[] IDENTITY_EXPIRES_FIELD = JsonBytes.ascii("\",\"identity_expires\":");
  private static final byte[] REFRESH_FROM_FIELD = JsonBytes.ascii(",\"refresh_from\":");
  private static final byte[] REFRESH_EXPIRES_FIELD = JsonBytes.ascii(",\"refresh_expires\":");
  private static final byte[] TOKENS_TAIL = JsonBytes.ascii("}}");
  private static final byte[] RESPONSE_KEY_FIELD = JsonBytes.ascii(",\"refresh_response_key\":");

  /** Keys, punctuation and three numbers of a tokens answer, besides the tokens themselves. */
  private static final int TOKENS_OVERHEAD = 200;

  private final TokenService tokens;
  private final OutcomeCounters outcomes;
  private final NonceSource ivs = NonceSource.secure();

  TokenEndpoints(TokenService tokens, OutcomeCounters outcomes) {
    this.tokens = tokens;
    this.outcomes = outcomes;
  }

  /** Generate: the caller's site id goes into the token; an opted-out identity gets optout. */
  void generate(Exchange ex, Params params) {
    generate(ex, params, false);
  }

  /**
   * v2 generate, called with the opened envelope's JSON: v1's generate, whose answer also carries
   * the new refresh token's {@code refresh_response_key}. UID2's {@code optout_check} is not read:
   * an opted-out identity answers optout in every profile, as UID2's v2 does with it.
   */
  void generateV2(Exchange ex, Params params) {
    generate(ex, params, true);
  }

  private void generate(Exchange ex, Params params, boolean v2) {
    IdentityParam param = IdentityParam.from(params);
    IdentityHash identity;
    try {
      identity = param.parse();
    } catch (VeilException e) {
      outcomes.generateInvalidIdentifier();
      throw e;
    }
    ApiClient client = ex.client();
    GenerateOutcome outcome =
        v2
            ? tokens.generateCheckingOptOut(identity, client.siteId(), client.id())
            : tokens.generate(identity, client.siteId(), client.id());
    outcomes.generate(outcome);
    if (outcome instanceof GenerateOutcome.Generated generated) {
      IdentityTokens t = generated.tokens();
      ex.sendJson(200, v2 ? tokensAnswer(t, responseKey(t)) : tokensAnswer(t));
    } else {
      ex.optout();
    }
  }

  /**
   * Refresh, GET form: a space in the token is a {@code +} that the caller did not percent-encode,
   * since base64 has no space; that is the caller's bug and answers {@code clienterror}
   * (docs/spec.md 1.1), for every caller, instead of the invalid-token answers, which would not say
   * what to fix.
   */
  void refreshFromQuery(Exchange ex, Params params) {
    String refreshToken = params.get(REFRESH_TOKEN);
    if (refreshToken != null && refreshToken.indexOf(' ') >= 0) {
      throw VeilException.clientError(UNENCODED_PLUS);
    }
    refresh(ex, params);
  }

  /**
   * Refresh: no key needed, but a valid key (any role) turns the generic {@code error} for an
   * invalid or expired token into {@code invalid_token} / {@code expired_token}. An empty value is
   * an invalid token, not a missing one.
   */
  void refresh(Exchange ex, Params params) {
    String refreshToken = params.get(REFRESH_TOKEN);
    if (refreshToken == null) {
      throw VeilException.clientError(REFRESH_TOKEN_MISSING);
    }
    refresh(ex, refreshToken, false);
  }

  /**
   * v2 refresh: the body is the refresh token's text, not enveloped. A success or optout answer is
   * sealed under the presented token's {@code refresh_response_key} (base64 of [IV, AES-256-GCM of
   * the JSON, tag], no time or nonce), and a success carries the new token's key; the errors are
   * v1's, spelled as UID2 spells them.
   */
  void refreshV2(Exchange ex, Buffer body) {
    ex.speakUid2();
    if (body.length() == 0) {
      throw VeilException.clientError(REFRESH_TOKEN_MISSING);
    }
    refresh(ex, body.toString(StandardCharsets.ISO_8859_1), true);
  }

  private void refresh(Exchange ex, String refreshToken, boolean v2) {
    RefreshOutcome outcome = tokens.refresh(refreshToken);
    outcomes.refresh(outcome);
    boolean authenticated = ex.client() != null;
    boolean accepted =
        outcome instanceof RefreshOutcome.Refreshed || outcome instanceof RefreshOutcome.OptedOut;
    if (v2 && accepted) {
      byte[] key = tokens.refreshResponseKey(refreshToken).orElse(null);
      if (key == null) {
        outcome = new RefreshOutcome.Invalid(); // its key left the ring since: cannot happen today
      } else {
        sealUnder(ex, key);
      }
    }
    if (outcome instanceof RefreshOutcome.Refreshed refreshed) {
      IdentityTokens t = refreshed.tokens();
      ex.sendJson(200, v2 ? tokensAnswer(t, responseKey(t)) : tokensAnswer(t));
    } else if (outcome instanceof RefreshOutcome.OptedOut) {
      ex.optout();
    } else if (!authenticated) {
      throw new VeilException(ErrorCode.REFRESH_ERROR, "Error refreshing token");
    } else if (outcome instanceof RefreshOutcome.Expired) {
      throw new VeilException(ErrorCode.EXPIRED_TOKEN, "Expired Token presented");
    } else {
      // The message echoes the presented token (docs/spec.md 1.4): the only input an answer echoes.
      throw new VeilException(ErrorCode.INVALID_TOKEN, "Invalid Token presented " + refreshToken);
    }
  }

  /** The new refresh token's {@code refresh_response_key}: it was just issued, so it is known. */
  private byte[] responseKey(IdentityTokens t) {
    return tokens
        .refreshResponseKey(t.refreshToken())
        .orElseThrow(() -> new IllegalStateException("the refresh key just used is unknown"));
  }

  /**
   * Seals the exchange's 200 answer under {@code key} as UID2's refresh answer: standard base64 of
   * [a fresh 12-byte IV, AES-256-GCM of the JSON, its 16-byte tag]. Takes ownership of {@code key}.
   */
  private void sealUnder(Exchange ex, byte[] key) {
    EnvelopeSecret secret = EnvelopeSecret.of(key);
    Arrays.fill(key, (byte) 0);
    ex.sealAnswers(
        json -> V2Requests.wrap(V2Envelope.BASE64.sealRefreshAnswer(json.getBytes(), secret, ivs)));
  }

  /**
   * Validate: {@code true} only for a test identity whose token matches; a missing token is false.
   */
  void validate(Exchange ex, Params params) {
    String advertisingToken = params.get("token");
    IdentityHash identity = IdentityParam.from(params).parse();
    boolean valid = advertisingToken != null && tokens.validate(advertisingToken, identity);
    ex.success(json -> json.writeBoolean(valid), 48);
  }

  /**
   * {@code
   * {"status":"success","body":{"advertising_token":…,"refresh_token":…,"identity_expires":…,
   * "refresh_from":…,"refresh_expires":…}}}, written by hand ({@link JsonBytes}): the tokens are
   * base64 text, which needs no escaping, copied as bytes.
   */
  static Buffer tokensAnswer(IdentityTokens t) {
    return tokensAnswer(t, null);
  }

  /**
   * Like {@link #tokensAnswer(IdentityTokens)}, with {@code "refresh_response_key"} (standard
   * base64 of {@code responseKey}) last in the body when {@code responseKey} is not null (v2).
   */
  static Buffer tokensAnswer(IdentityTokens t, byte[] responseKey) {
    JsonBytes json =
        new JsonBytes(t.advertisingTokenLength() + t.refreshTokenLength() + TOKENS_OVERHEAD);
    json.raw(TOKENS_HEAD);
    int at = json.reserve(t.advertisingTokenLength());
    t.copyAdvertisingToken(json.array(), at);
    json.raw(REFRESH_TOKEN_FIELD);
    at = json.reserve(t.refreshTokenLength());
    t.copyRefreshToken(json.array(), at);
    json.raw(IDENTITY_EXPIRES_FIELD)
        .number(t.identityExpires().toEpochMilli())
        .raw(REFRESH_FROM_FIELD)
        .number(t.refreshFrom().toEpochMilli())
        .raw(REFRESH_EXPIRES_FIELD)
        .number(t.refreshExpires().toEpochMilli());
    if (responseKey != null) {
      json.raw(RESPONSE_KEY_FIELD).base64String(responseKey, 0, responseKey.length);
      Arrays.fill(responseKey, (byte) 0);
    }
    return json.raw(TOKENS_TAIL).toBuffer();
  }
}

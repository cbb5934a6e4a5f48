package dev.veil.http;

import dev.veil.client.ApiClient;
import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import dev.veil.core.identity.IdentityHash;
import dev.veil.token.GenerateOutcome;
import dev.veil.token.IdentityTokens;
import dev.veil.token.RefreshOutcome;
import dev.veil.token.TokenService;
import io.vertx.core.buffer.Buffer;

/**
 * {@code /v1/token/generate}, {@code /v1/token/refresh} and {@code /v1/token/validate}
 * (docs/spec.md 1.3 to 1.5): translate parameters into {@link TokenService} calls and outcomes into
 * answers. Each method serves both the GET (query) and the POST (JSON body) form.
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

  /** Keys, punctuation and three numbers of a tokens answer, besides the tokens themselves. */
  private static final int TOKENS_OVERHEAD = 200;

  private final TokenService tokens;
  private final OutcomeCounters outcomes;

  TokenEndpoints(TokenService tokens, OutcomeCounters outcomes) {
    this.tokens = tokens;
    this.outcomes = outcomes;
  }

  /** Generate: the caller's site id goes into the token; an opted-out identity gets optout. */
  void generate(Exchange ex, Params params) {
    IdentityParam param = IdentityParam.from(params);
    IdentityHash identity;
    try {
      identity = param.parse();
    } catch (VeilException e) {
      outcomes.generateInvalidIdentifier();
      throw e;
    }
    ApiClient client = ex.client();
    GenerateOutcome outcome = tokens.generate(identity, client.siteId(), client.id());
    outcomes.generate(outcome);
    if (outcome instanceof GenerateOutcome.Generated generated) {
      ex.sendJson(200, tokensAnswer(generated.tokens()));
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
    RefreshOutcome outcome = tokens.refresh(refreshToken);
    outcomes.refresh(outcome);
    boolean authenticated = ex.client() != null;
    if (outcome instanceof RefreshOutcome.Refreshed refreshed) {
      ex.sendJson(200, tokensAnswer(refreshed.tokens()));
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
        .number(t.refreshExpires().toEpochMilli())
        .raw(TOKENS_TAIL);
    return json.toBuffer();
  }
}

package dev.veil.sdk;

import dev.veil.sdk.internal.ApiCaller.BodyReader;
import dev.veil.sdk.internal.Envelopes;
import dev.veil.sdk.internal.Envelopes.Envelope;
import dev.veil.sdk.internal.TokenJson;
import dev.veil.sdk.internal.V2Envelopes;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * Token generation and refresh for publishers, called from the publisher's server after the user
 * logged in (never from a browser: that would expose the API key). Needs a key with the {@code
 * GENERATOR} role for {@link #generate}; refresh needs none.
 *
 * <pre>{@code
 * PublisherClient publisher = veil.publisher();
 * TokenOutcome outcome = publisher.generate(Identifier.email(user.email()).hashed());
 * outcome.issuedTokens().ifPresent(tokens -> session.store(tokens.toJson()));
 * ...
 * TokenOutcome next = publisher.refresh(IdentityTokens.fromJson(session.identity()));
 * }</pre>
 *
 * <p>Without a client secret it calls {@code /v1/token/generate} and {@code /v1/token/refresh};
 * with one ({@link VeilClient.Builder#clientSecret}), {@code /v2/token/generate} and {@code
 * /v2/token/refresh}, whose bodies are encrypted. A v2 identity carries the key of its refresh
 * answer ({@link IdentityTokens#refreshResponseKey()}), so over v2 refresh takes the whole
 * identity. Both APIs give the same outcomes. Every call is a {@code POST} with the identifier or
 * token in its body, out of URLs and access logs. Obtain it from {@link VeilClient#publisher()};
 * immutable and thread-safe.
 */
public final class PublisherClient {
  private static final BodyReader<Envelope<IdentityTokens>> TOKENS =
      in -> Envelopes.read(in, TokenJson::read);

  private final VeilClient client;

  PublisherClient(VeilClient client) {
    this.client = client;
  }

  /**
   * A token pair for a logged-in user. With {@link VeilClient.Builder#hashIdentifiers(boolean)} the
   * identifier is hashed here first. Over v2 the request asks for the opt-out check, as v2
   * requires.
   *
   * @return {@link TokenOutcome.Issued} or {@link TokenOutcome.OptedOut}
   * @throws IllegalArgumentException if the identifier does not normalize (checked before sending)
   * @throws VeilApiException if the server refuses (e.g. 401 without the GENERATOR role)
   * @throws VeilTransportException if no answer arrives, or a v2 answer cannot be opened
   */
  public TokenOutcome generate(Identifier identifier) {
    Objects.requireNonNull(identifier, "identifier");
    if (!identifier.isValid()) {
      throw new IllegalArgumentException("invalid " + identifier.kind().parameterName());
    }
    Identifier sent = client.hashIdentifiers() ? identifier.hashed() : identifier;
    Optional<V2Envelopes> v2 = client.v2();
    byte[] body =
        Envelopes.write(
            g -> {
              g.writeStartObject();
              g.writeStringField(sent.kind().parameterName(), sent.value());
              if (v2.isPresent()) {
                g.writeNumberField("optout_check", 1);
              }
              g.writeEndObject();
            });
    if (v2.isEmpty()) {
      return tokenOutcome(client.caller().call("/v1/token/generate", body, TOKENS));
    }
    return tokenOutcome(client.caller().call("/v2/token/generate", v2.get().sealed(body, TOKENS)));
  }

  /**
   * The next token pair from a refresh token, over v1. A client with a secret refreshes over v2,
   * which needs the whole identity: call {@link #refresh(IdentityTokens)} there.
   *
   * @return {@link TokenOutcome.Issued}, {@link TokenOutcome.OptedOut} (the chain ends), {@link
   *     TokenOutcome.InvalidToken} or {@link TokenOutcome.ExpiredToken}
   * @throws IllegalStateException if the client has a secret
   * @throws VeilApiException for any other refusal
   * @throws VeilTransportException if no answer arrives
   */
  public TokenOutcome refresh(String refreshToken) {
    Objects.requireNonNull(refreshToken, "refreshToken");
    if (client.v2().isPresent()) {
      throw new IllegalStateException(
          "a client with a secret refreshes over v2, whose answer is encrypted under the"
              + " identity's refresh response key: call refresh(IdentityTokens)");
    }
    byte[] body =
        Envelopes.write(
            g -> {
              g.writeStartObject();
              g.writeStringField("refresh_token", refreshToken);
              g.writeEndObject();
            });
    return refreshOutcome("/v1/token/refresh", body, TOKENS);
  }

  /**
   * The next token pair for {@code identity}: over v2 with a client secret (the answer is opened
   * with the identity's {@link IdentityTokens#refreshResponseKey()}), else over v1 as {@link
   * #refresh(String)}.
   *
   * @return {@link TokenOutcome.Issued}, {@link TokenOutcome.OptedOut} (the chain ends), {@link
   *     TokenOutcome.InvalidToken} or {@link TokenOutcome.ExpiredToken}
   * @throws IllegalArgumentException over v2, if the identity has no refresh response key (issued
   *     over v1, or stored without it: generate a new one) or one that is not base64 of 32 bytes
   * @throws VeilApiException for any other refusal
   * @throws VeilTransportException if no answer arrives, or a v2 answer cannot be opened
   */
  public TokenOutcome refresh(IdentityTokens identity) {
    Objects.requireNonNull(identity, "identity");
    if (client.v2().isEmpty()) {
      return refresh(identity.refreshToken());
    }
    if (identity.refreshResponseKey() == null) {
      throw new IllegalArgumentException(
          "the identity has no refresh response key (issued over v1, or stored without it):"
              + " generate a new identity, or refresh it with a client without a secret");
    }
    return refreshOutcome(
        "/v2/token/refresh",
        identity.refreshToken().getBytes(StandardCharsets.US_ASCII),
        V2Envelopes.refreshAnswer(identity.refreshResponseKey(), TOKENS));
  }

  /** Calls a refresh endpoint; its refusals of the token are outcomes, as on both APIs. */
  private TokenOutcome refreshOutcome(
      String path, byte[] body, BodyReader<Envelope<IdentityTokens>> reader) {
    try {
      return tokenOutcome(client.caller().call(path, body, reader));
    } catch (VeilApiException e) {
      if (e.httpStatus() == 400) {
        switch (e.status()) {
          case "expired_token" -> {
            return new TokenOutcome.ExpiredToken();
          }
          case "invalid_token", "error" -> {
            return new TokenOutcome.InvalidToken();
          }
          default -> {}
        }
      }
      throw e;
    }
  }

  private static TokenOutcome tokenOutcome(Envelope<IdentityTokens> envelope) {
    if (envelope.isOptOut()) {
      return new TokenOutcome.OptedOut();
    }
    if (envelope.isSuccess() && envelope.body() != null) {
      return new TokenOutcome.Issued(envelope.body());
    }
    throw new VeilApiException(200, envelope.status(), "unexpected answer to a token request", 1);
  }
}

package dev.veil.sdk;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.veil.sdk.internal.Envelopes;
import dev.veil.sdk.internal.Envelopes.Envelope;
import java.io.IOException;
import java.time.Instant;
import java.util.Objects;

/**
 * Token generation and refresh for publishers, called from the publisher's server after the user
 * logged in (never from a browser: that would expose the API key). Needs a key with the {@code
 * GENERATOR} role for {@link #generate}; {@link #refresh} needs none.
 *
 * <pre>{@code
 * PublisherClient publisher = veil.publisher();
 * TokenOutcome outcome = publisher.generate(Identifier.email(user.email()).hashed());
 * outcome.issuedTokens().ifPresent(tokens -> session.store(tokens));
 * }</pre>
 *
 * <p>Both calls send {@code POST} with a JSON body, so identifiers and tokens stay out of URLs and
 * access logs. Obtain it from {@link VeilClient#publisher()}; immutable and thread-safe.
 */
public final class PublisherClient {
  private final VeilClient client;

  PublisherClient(VeilClient client) {
    this.client = client;
  }

  /**
   * A token pair for a logged-in user. With {@link VeilClient.Builder#hashIdentifiers(boolean)} the
   * identifier is hashed here first.
   *
   * @return {@link TokenOutcome.Issued} or {@link TokenOutcome.OptedOut}
   * @throws IllegalArgumentException if the identifier does not normalize (checked before sending)
   * @throws VeilApiException if the server refuses (e.g. 401 without the GENERATOR role)
   * @throws VeilTransportException if no answer arrives
   */
  public TokenOutcome generate(Identifier identifier) {
    Objects.requireNonNull(identifier, "identifier");
    if (!identifier.isValid()) {
      throw new IllegalArgumentException("invalid " + identifier.kind().parameterName());
    }
    Identifier sent = client.hashIdentifiers() ? identifier.hashed() : identifier;
    byte[] body =
        Envelopes.write(
            g -> {
              g.writeStartObject();
              g.writeStringField(sent.kind().parameterName(), sent.value());
              g.writeEndObject();
            });
    return tokenOutcome(
        client
            .caller()
            .call(
                "/v1/token/generate", body, in -> Envelopes.read(in, PublisherClient::readTokens)));
  }

  /**
   * The next token pair from a refresh token.
   *
   * @return {@link TokenOutcome.Issued}, {@link TokenOutcome.OptedOut} (the chain ends), {@link
   *     TokenOutcome.InvalidToken} or {@link TokenOutcome.ExpiredToken}
   * @throws VeilApiException for any other refusal
   * @throws VeilTransportException if no answer arrives
   */
  public TokenOutcome refresh(String refreshToken) {
    Objects.requireNonNull(refreshToken, "refreshToken");
    byte[] body =
        Envelopes.write(
            g -> {
              g.writeStartObject();
              g.writeStringField("refresh_token", refreshToken);
              g.writeEndObject();
            });
    try {
      return tokenOutcome(
          client
              .caller()
              .call(
                  "/v1/token/refresh",
                  body,
                  in -> Envelopes.read(in, PublisherClient::readTokens)));
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

  private static IdentityTokens readTokens(JsonParser p) throws IOException {
    Envelopes.expect(p, p.currentToken(), JsonToken.START_OBJECT);
    String advertising = null;
    String refresh = null;
    long identityExpires = -1;
    long refreshFrom = -1;
    long refreshExpires = -1;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      switch (name) {
        case "advertising_token" -> advertising = Envelopes.text(p);
        case "refresh_token" -> refresh = Envelopes.text(p);
        case "identity_expires" -> identityExpires = Envelopes.number(p);
        case "refresh_from" -> refreshFrom = Envelopes.number(p);
        case "refresh_expires" -> refreshExpires = Envelopes.number(p);
        default -> p.skipChildren();
      }
    }
    if (advertising == null
        || refresh == null
        || identityExpires < 0
        || refreshFrom < 0
        || refreshExpires < 0) {
      throw new com.fasterxml.jackson.core.JsonParseException(p, "token answer lacks a field");
    }
    return new IdentityTokens(
        advertising,
        refresh,
        Instant.ofEpochMilli(identityExpires),
        Instant.ofEpochMilli(refreshFrom),
        Instant.ofEpochMilli(refreshExpires));
  }
}

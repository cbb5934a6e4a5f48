package dev.veil.sdk.internal;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.veil.sdk.IdentityTokens;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * An identity as JSON, the body of a generate or refresh answer: {@code advertising_token}, {@code
 * refresh_token}, {@code identity_expires}, {@code refresh_from}, {@code refresh_expires} (epoch
 * milliseconds) and, over v2, {@code refresh_response_key}. Members may come in any order; unknown
 * ones are skipped. No message quotes a value.
 */
public final class TokenJson {
  private TokenJson() {}

  /** Reads the object the parser stands on (its {@code START_OBJECT}). */
  public static IdentityTokens read(JsonParser p) throws IOException {
    Envelopes.expect(p, p.currentToken(), JsonToken.START_OBJECT);
    String advertising = null;
    String refresh = null;
    String responseKey = null;
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
        case "refresh_response_key" -> responseKey = Envelopes.text(p);
        default -> p.skipChildren();
      }
    }
    if (advertising == null
        || refresh == null
        || identityExpires < 0
        || refreshFrom < 0
        || refreshExpires < 0) {
      throw new JsonParseException(p, "token answer lacks a field");
    }
    return new IdentityTokens(
        advertising,
        refresh,
        Instant.ofEpochMilli(identityExpires),
        Instant.ofEpochMilli(refreshFrom),
        Instant.ofEpochMilli(refreshExpires),
        responseKey);
  }

  /** Parses a whole JSON text holding one identity object. */
  public static IdentityTokens parse(String json) {
    try (JsonParser p = Envelopes.JSON.createParser(json.getBytes(StandardCharsets.UTF_8))) {
      p.nextToken();
      IdentityTokens tokens = read(p);
      if (p.nextToken() != null) {
        throw new JsonParseException(p, "content after the identity");
      }
      return tokens;
    } catch (IOException e) {
      // Jackson's message may quote the text, which holds credentials
      throw new IllegalArgumentException(
          "not an identity: expected a JSON object with advertising_token, refresh_token,"
              + " identity_expires, refresh_from and refresh_expires",
          null);
    }
  }

  /** The identity as a JSON object, in the order of a generate answer. */
  public static String write(IdentityTokens t) {
    byte[] json =
        Envelopes.write(
            g -> {
              g.writeStartObject();
              g.writeStringField("advertising_token", t.advertisingToken());
              g.writeStringField("refresh_token", t.refreshToken());
              g.writeNumberField("identity_expires", t.identityExpires().toEpochMilli());
              g.writeNumberField("refresh_from", t.refreshFrom().toEpochMilli());
              g.writeNumberField("refresh_expires", t.refreshExpires().toEpochMilli());
              if (t.refreshResponseKey() != null) {
                g.writeStringField("refresh_response_key", t.refreshResponseKey());
              }
              g.writeEndObject();
            });
    return new String(json, StandardCharsets.UTF_8);
  }
}

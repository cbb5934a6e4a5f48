package dev.veil.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.veil.common.VeilException;
import dev.veil.core.identity.IdentityInput;
import java.io.IOException;
import java.util.EnumSet;
import java.util.Set;

/**
 * Reads the body of {@code POST /v3/identity/map} (docs/http-api.md, "The v2 API"): a JSON object
 * with arrays of strings under any of {@code email}, {@code email_hash}, {@code phone} and {@code
 * phone_hash}, mixed in one request. Other members are ignored (forward compatibility); a body with
 * none of the four, a member of the four that is not an array of strings, one given twice, or more
 * identifiers in all than the limit is refused.
 *
 * <p>Arrays are handed to a {@link Sink} as they are read, in body order, so mapping keeps pace
 * with parsing. A refused body may have sent identifiers to the sink: the caller discards what it
 * made of them.
 */
final class MapV3Request {
  /** Receives the arrays of the request in body order. */
  interface Sink extends MapBatchRequest.Sink {
    /** An array of this kind starts. */
    void start(IdentityInput input);

    /** The current array ended. */
    void end(IdentityInput input);
  }

  private MapV3Request() {}

  /**
   * Reads the request from a parser positioned before the body's first token; returns the kinds of
   * identifier the body gave an array for.
   *
   * @throws VeilException CLIENT_ERROR naming the problem of a bad body
   */
  static Set<IdentityInput> read(JsonParser json, int maxIdentifiers, Sink sink)
      throws IOException {
    MapBatchRequest.openObject(json);
    Set<IdentityInput> given = EnumSet.noneOf(IdentityInput.class);
    int count = 0;
    while (json.nextToken() == JsonToken.FIELD_NAME) {
      IdentityInput input = IdentityInput.fromParameterName(json.currentName());
      JsonToken value = json.nextToken();
      if (input == null) {
        json.skipChildren();
        continue;
      }
      if (value != JsonToken.START_ARRAY) {
        throw VeilException.clientError(
            "Invalid body: " + input.parameterName() + " must be an array of strings");
      }
      if (!given.add(input)) {
        throw VeilException.clientError(
            "Invalid body: " + input.parameterName() + " is given twice");
      }
      sink.start(input);
      count = MapBatchRequest.readStrings(json, input, count, maxIdentifiers, sink);
      sink.end(input);
    }
    if (given.isEmpty()) {
      throw VeilException.clientError(
          "Invalid body: expected an array of email, email_hash, phone or phone_hash");
    }
    return given;
  }
}

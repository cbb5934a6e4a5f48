package dev.veil.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.veil.common.VeilException;
import dev.veil.core.identity.IdentityInput;
import java.io.IOException;

/**
 * Reads the body of {@code POST /v1/identity/map} (docs/spec.md 1.6): a JSON object with at most
 * one non-empty array of strings under {@code email}, {@code email_hash}, {@code phone} or {@code
 * phone_hash}. Other members are ignored (for forward compatibility). Empty arrays add nothing: a
 * body whose arrays are all empty is an empty batch (answered with nothing mapped, as UID2's
 * operator answers it, so a client that sends a last, empty batch does not fail); a body without
 * any of the four arrays is refused.
 *
 * <p>The identifiers of the first non-empty array go to a {@link Sink} as they are read, so mapping
 * keeps pace with parsing and no list of identifiers is built. The rules are checked in the order
 * of the body, as a reader that collected everything first would: an element that is not a string,
 * or one identifier over the limit, is refused where it stands; a second non-empty array is refused
 * once it has been read. A refused body may have sent identifiers to the sink before the refusal:
 * the caller discards what it made of them.
 */
final class MapBatchRequest {
  static final String NO_ARRAY =
      "Invalid body: expected an array of email, email_hash, phone or phone_hash";
  static final String TWO_ARRAYS =
      "Invalid body: only one of email, email_hash, phone, phone_hash may hold a non-empty array";

  /** Receives the identifiers of the chosen array, in request order. */
  @FunctionalInterface
  interface Sink {
    void identifier(IdentityInput input, String value);
  }

  private MapBatchRequest() {}

  /**
   * Reads the request from a parser positioned before the body's first token and returns the kind
   * of identifier its array holds, or null for an empty batch (every array given is empty).
   *
   * @throws VeilException CLIENT_ERROR naming the problem of a bad body
   */
  static IdentityInput read(JsonParser json, int maxIdentifiers, Sink sink) throws IOException {
    openObject(json);
    IdentityInput chosen = null;
    boolean anArray = false;
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
      anArray = true;
      int count = readStrings(json, input, 0, maxIdentifiers, chosen == null ? sink : null);
      if (count == 0) {
        continue;
      }
      if (chosen != null) {
        throw VeilException.clientError(TWO_ARRAYS);
      }
      chosen = input;
    }
    if (!anArray) {
      throw VeilException.clientError(NO_ARRAY);
    }
    return chosen;
  }

  /**
   * Reads an array of strings up to its end, giving each to {@code sink} unless it is null, and
   * returns {@code countBefore} plus the number read. Shared with {@link MapV3Request}, whose limit
   * counts across its arrays.
   *
   * @throws VeilException CLIENT_ERROR for a value that is not a string, or once the count would
   *     pass {@code max}
   */
  static int readStrings(JsonParser json, IdentityInput input, int countBefore, int max, Sink sink)
      throws IOException {
    int count = countBefore;
    int index = 0;
    JsonToken token;
    while ((token = json.nextToken()) != JsonToken.END_ARRAY) {
      if (token != JsonToken.VALUE_STRING) {
        throw VeilException.clientError(
            "Invalid body: " + input.parameterName() + "[" + index + "] must be a string");
      }
      if (count == max) {
        throw VeilException.clientError("Too many identifiers: at most " + max + " per request");
      }
      String value = json.getText(); // also where malformed UTF-8 inside the string is found
      if (sink != null) {
        sink.identifier(input, value);
      }
      count++;
      index++;
    }
    return count;
  }

  /**
   * Moves {@code json} into the body's top-level object.
   *
   * @throws VeilException CLIENT_ERROR for an empty body or one that is not an object
   */
  static void openObject(JsonParser json) throws IOException {
    if (json.nextToken() != JsonToken.START_OBJECT) {
      throw VeilException.clientError(
          json.currentToken() == null
              ? "Request body is empty: expected a JSON object"
              : "Request body must be a JSON object");
    }
  }
}

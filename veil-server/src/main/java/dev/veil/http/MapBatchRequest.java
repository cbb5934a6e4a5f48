package dev.veil.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.veil.common.VeilException;
import dev.veil.core.identity.IdentityInput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of {@code POST /v1/identity/map} (SPEC 1.6): a JSON object with exactly one non-empty
 * array of strings under {@code email}, {@code email_hash}, {@code phone} or {@code phone_hash}.
 * Other members are ignored (for forward compatibility); empty arrays count as absent. The size
 * limit is checked while reading, so a body with too many identifiers is refused at the first one
 * over the limit.
 *
 * @param input which kind of identifier the array holds
 * @param values the identifiers, in request order
 */
record MapBatchRequest(IdentityInput input, List<String> values) {
  static final String NO_ARRAY =
      "Invalid body: expected one non-empty array of email, email_hash, phone or phone_hash";
  static final String TWO_ARRAYS =
      "Invalid body: only one of email, email_hash, phone, phone_hash may hold a non-empty array";

  /** Reads the request from a parser positioned before the body's first token. */
  static MapBatchRequest read(JsonParser json, int maxIdentifiers) throws IOException {
    if (json.nextToken() != JsonToken.START_OBJECT) {
      throw VeilException.clientError(json.currentToken() == null
          ? "Request body is empty: expected a JSON object"
          : "Request body must be a JSON object");
    }
    IdentityInput chosen = null;
    List<String> values = List.of();
    while (json.nextToken() == JsonToken.FIELD_NAME) {
      IdentityInput input = IdentityInput.fromParameterName(json.currentName());
      JsonToken value = json.nextToken();
      if (input == null) {
        json.skipChildren();
        continue;
      }
      if (value != JsonToken.START_ARRAY) {
        throw VeilException.clientError("Invalid body: " + input.parameterName() + " must be an array of strings");
      }
      List<String> strings = readStrings(json, input, maxIdentifiers);
      if (strings.isEmpty()) {
        continue;
      }
      if (chosen != null) {
        throw VeilException.clientError(TWO_ARRAYS);
      }
      chosen = input;
      values = strings;
    }
    if (chosen == null) {
      throw VeilException.clientError(NO_ARRAY);
    }
    return new MapBatchRequest(chosen, values);
  }

  private static List<String> readStrings(JsonParser json, IdentityInput input, int max) throws IOException {
    List<String> out = new ArrayList<>();
    JsonToken token;
    while ((token = json.nextToken()) != JsonToken.END_ARRAY) {
      if (token != JsonToken.VALUE_STRING) {
        throw VeilException.clientError(
            "Invalid body: " + input.parameterName() + "[" + out.size() + "] must be a string");
      }
      if (out.size() == max) {
        throw VeilException.clientError("Too many identifiers: at most " + max + " per request");
      }
      out.add(json.getText());
    }
    return out;
  }
}

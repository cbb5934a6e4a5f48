package dev.veil.console;

import dev.veil.common.VeilException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fields of an {@code application/x-www-form-urlencoded} body or a query string. A value that
 * does not parse is refused with {@link VeilException#clientError} naming the field's label, never
 * repeating the value (it may be personal data). Immutable.
 */
final class Form {
  static final Form EMPTY = new Form(Map.of());

  private final Map<String, List<String>> fields;

  private Form(Map<String, List<String>> fields) {
    this.fields = fields;
  }

  /**
   * Parses {@code encoded} ({@code a=1&b=x+y}); a malformed escape is refused.
   *
   * @throws VeilException CLIENT_ERROR for a malformed escape
   */
  static Form parse(String encoded) {
    Map<String, List<String>> fields = new LinkedHashMap<>();
    if (encoded == null || encoded.isEmpty()) {
      return new Form(fields);
    }
    for (String pair : encoded.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      fields.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
    }
    return new Form(fields);
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw VeilException.clientError("the form is malformed (a bad %-escape)");
    }
  }

  /** The field's first value, or {@code ""}. */
  String text(String name) {
    List<String> values = fields.get(name);
    return values == null || values.isEmpty() ? "" : values.get(0);
  }

  /** Every value of the field (checkboxes), in order. */
  List<String> all(String name) {
    return List.copyOf(fields.getOrDefault(name, List.of()));
  }

  boolean has(String name) {
    return fields.containsKey(name);
  }

  /**
   * The field as a whole number from {@code min} to {@code max}; {@code fallback} when it is empty.
   *
   * @throws VeilException CLIENT_ERROR naming {@code label} otherwise
   */
  long number(String name, String label, long min, long max, long fallback) {
    String text = text(name).strip();
    if (text.isEmpty()) {
      return fallback;
    }
    try {
      long value = Long.parseLong(text);
      if (value >= min && value <= max) {
        return value;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw VeilException.clientError(label + " must be a whole number from " + min + " to " + max);
  }

  /** Comma, space or newline separated numbers (ids); none when the field is empty. */
  List<Integer> numbers(String name, String label) {
    List<Integer> out = new ArrayList<>();
    for (String part : text(name).split("[,\\s]+")) {
      if (part.isEmpty()) {
        continue;
      }
      try {
        out.add(Integer.parseInt(part));
      } catch (NumberFormatException e) {
        throw VeilException.clientError(label + " must be whole numbers separated by commas");
      }
    }
    return out;
  }
}

package dev.veil.http;

import dev.veil.common.VeilException;
import java.util.ArrayList;
import java.util.List;

/**
 * The named string parameters of a request, from its query string ({@link QueryString}) or from the
 * top level of its JSON object body ({@link JsonBodies#params}), so endpoints read both forms the
 * same way.
 *
 * <p>A name given twice is kept twice: {@link #count} sees both and {@link #get} refuses to choose.
 * A JSON member whose value is not a string is kept as unusable: {@link #get} refuses it, naming
 * the parameter; endpoints that never ask for it ignore it.
 */
final class Params {
  private static final Object NOT_A_STRING = new Object();

  private final List<String> names = new ArrayList<>(4);
  private final List<Object> values = new ArrayList<>(4);

  static Params empty() {
    return new Params();
  }

  void add(String name, String value) {
    names.add(name);
    values.add(value);
  }

  void addNonString(String name) {
    names.add(name);
    values.add(NOT_A_STRING);
  }

  /** How many times {@code name} was given. */
  int count(String name) {
    int n = 0;
    for (String each : names) {
      if (each.equals(name)) {
        n++;
      }
    }
    return n;
  }

  boolean has(String name) {
    return names.contains(name);
  }

  /**
   * The value of {@code name}, or null when absent.
   *
   * @throws VeilException CLIENT_ERROR when it was given more than once or is not a string
   */
  String get(String name) {
    Object found = null;
    for (int i = 0; i < names.size(); i++) {
      if (names.get(i).equals(name)) {
        if (found != null) {
          throw VeilException.clientError("Parameter given more than once: " + name);
        }
        found = values.get(i);
      }
    }
    if (found == NOT_A_STRING) {
      throw VeilException.clientError("Invalid parameter: " + name + " must be a string");
    }
    return (String) found;
  }
}

package dev.veil.console;

/**
 * Builds an HTML fragment in which every value is escaped: {@link #text} for content and the values
 * of {@link #open}'s attributes are escaped, and markup is written only by the element methods and
 * {@link #raw}, which takes literals from the code, never input. Not thread-safe.
 */
final class Html {
  private final StringBuilder out = new StringBuilder(2048);

  /**
   * Opens {@code <tag name="value" …>}; {@code attributes} are name-value pairs, null values left
   * out.
   */
  Html open(String tag, String... attributes) {
    out.append('<').append(tag);
    for (int i = 0; i + 1 < attributes.length; i += 2) {
      if (attributes[i + 1] == null) {
        continue;
      }
      out.append(' ').append(attributes[i]);
      if (!attributes[i + 1].isEmpty() || !isBoolean(attributes[i])) {
        out.append("=\"");
        escape(attributes[i + 1], out);
        out.append('"');
      }
    }
    out.append('>');
    return this;
  }

  Html close(String tag) {
    out.append("</").append(tag).append('>');
    return this;
  }

  /** {@code <tag …>text</tag>}. */
  Html element(String tag, Object text, String... attributes) {
    return open(tag, attributes).text(text).close(tag);
  }

  /** Escaped text. */
  Html text(Object value) {
    escape(String.valueOf(value), out);
    return this;
  }

  /** Markup written as it is: a literal of the code, never a value from a request or the store. */
  Html raw(String markup) {
    out.append(markup);
    return this;
  }

  /** Another fragment, already escaped by its own builder. */
  Html append(Html fragment) {
    out.append(fragment.out);
    return this;
  }

  @Override
  public String toString() {
    return out.toString();
  }

  private static boolean isBoolean(String attribute) {
    return switch (attribute) {
      case "required", "checked", "selected", "hidden", "disabled", "readonly" -> true;
      default -> false;
    };
  }

  /** Escapes {@code &}, {@code <}, {@code >}, both quotes; control characters become U+FFFD. */
  static String escape(String s) {
    StringBuilder b = new StringBuilder(s.length() + 16);
    escape(s, b);
    return b.toString();
  }

  private static void escape(String s, StringBuilder b) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c < 0x20 && c != '\n' && c != '\t' ? '\uFFFD' : c);
      }
    }
  }
}

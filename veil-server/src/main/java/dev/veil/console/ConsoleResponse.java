package dev.veil.console;

import java.util.List;

/**
 * What the console answers: a status, an HTML page (or nothing, for a redirect to {@code location})
 * and the {@code Set-Cookie} values to send. Immutable.
 */
record ConsoleResponse(int status, String html, String location, List<String> cookies) {
  ConsoleResponse {
    cookies = List.copyOf(cookies);
  }

  static ConsoleResponse page(int status, String html) {
    return new ConsoleResponse(status, html, null, List.of());
  }

  /** 303 See Other: after a form, the browser asks for {@code location} with GET. */
  static ConsoleResponse redirect(String location) {
    return new ConsoleResponse(303, "", location, List.of());
  }

  ConsoleResponse withCookie(String setCookie) {
    List<String> all = new java.util.ArrayList<>(cookies);
    all.add(setCookie);
    return new ConsoleResponse(status, html, location, all);
  }
}

package dev.veil.console;

import java.util.Locale;

/**
 * A request as the console's dispatcher sees it, read from the HTTP request on its event loop: no
 * Vert.x types beyond this point.
 *
 * @param host the {@code Host} header; {@code origin} and {@code fetchSite} the {@code Origin} and
 *     {@code Sec-Fetch-Site} headers, null when absent
 * @param arrivedNanos when the request's head arrived ({@code System.nanoTime()})
 * @param remoteAddress the peer's IP address, as the connection gives it
 */
record Incoming(
    String method,
    String path,
    String rawQuery,
    String body,
    String cookieHeader,
    String host,
    String origin,
    String fetchSite,
    long arrivedNanos,
    String remoteAddress) {

  static final String SESSION_COOKIE = "veil_console";
  static final String SIGN_IN_COOKIE = "veil_console_sign_in";

  /** The value of cookie {@code name}, or null. */
  String cookie(String name) {
    if (cookieHeader == null) {
      return null;
    }
    for (String part : cookieHeader.split(";")) {
      int eq = part.indexOf('=');
      if (eq > 0 && part.substring(0, eq).strip().equals(name)) {
        return part.substring(eq + 1).strip();
      }
    }
    return null;
  }

  /**
   * Why this POST cannot be a form of the console's own pages, or null when it is: the browser's
   * {@code Sec-Fetch-Site} must say {@code same-origin} when it is sent, and {@code Origin}, when
   * sent, must name the host the request was sent to; a request with neither is refused.
   */
  String crossSiteProblem() {
    if (origin == null && fetchSite == null) {
      return "the request carried neither an Origin nor a Sec-Fetch-Site header";
    }
    if (fetchSite != null && !fetchSite.equalsIgnoreCase("same-origin")) {
      return "the form was sent from another site";
    }
    if (origin != null) {
      int scheme = origin.indexOf("://");
      String authority = scheme < 0 ? "" : origin.substring(scheme + 3);
      if (host == null
          || !authority.toLowerCase(Locale.ROOT).equals(host.toLowerCase(Locale.ROOT))) {
        return "the form was sent from another origin";
      }
    }
    return null;
  }

  /** {@code Set-Cookie} for a cookie the browser keeps until it closes, sent only to this site. */
  static String setCookie(String name, String value, String path) {
    return name + "=" + value + "; Path=" + path + "; HttpOnly; SameSite=Strict";
  }

  /** {@code Set-Cookie} that deletes cookie {@code name}. */
  static String deleteCookie(String name, String path) {
    return name + "=; Path=" + path + "; Max-Age=0; HttpOnly; SameSite=Strict";
  }
}

package dev.veil.storage;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * A parsed store location. Accepted forms:
 *
 * <ul>
 *   <li>empty or {@code null}: the embedded store at {@value #DEFAULT_PATH};
 *   <li>a file path, {@code sqlite:<path>}, {@code sqlite://<path>} or {@code jdbc:sqlite:<path>}:
 *       the embedded store in that file;
 *   <li>{@code postgresql://[user[:password]@]host[:port][,host2…]/db[?params]} (also {@code
 *       postgres://}) or {@code jdbc:postgresql://…}: PostgreSQL, params as pgjdbc knows them.
 * </ul>
 *
 * The password, from the user-info part or a {@code password} parameter, is taken out of the URL
 * and kept only in {@link Postgres#credentials()}, so {@link #describe()} is safe to log.
 */
sealed interface StoreUrl permits StoreUrl.Sqlite, StoreUrl.Postgres {
  String DEFAULT_PATH = "./data/veil.db";

  /** Kind and location without a password. */
  String describe();

  /**
   * Parses {@code url}.
   *
   * @throws IllegalArgumentException for an unsupported scheme; the message never holds a password
   */
  static StoreUrl parse(String url) {
    String u = url == null ? "" : url.strip();
    if (u.isEmpty()) {
      return new Sqlite(Path.of(DEFAULT_PATH));
    }
    if (u.startsWith("jdbc:sqlite:")) {
      return Sqlite.of(u.substring("jdbc:sqlite:".length()));
    }
    if (u.startsWith("sqlite:")) {
      String rest = u.substring("sqlite:".length());
      return Sqlite.of(rest.startsWith("//") ? rest.substring(2) : rest);
    }
    if (u.startsWith("jdbc:postgresql:")) {
      return Postgres.of(u.substring("jdbc:postgresql:".length()));
    }
    if (u.startsWith("postgresql://") || u.startsWith("postgres://")) {
      return Postgres.of(u.substring(u.indexOf(':') + 1));
    }
    if (Postgres.SCHEME.matcher(u).lookingAt()) {
      String scheme = u.substring(0, u.indexOf(':'));
      throw new IllegalArgumentException(
          "unsupported store URL scheme '"
              + scheme
              + "': expected a file path, sqlite:<path>, postgresql://… or jdbc:postgresql://…");
    }
    return Sqlite.of(u);
  }

  /** The embedded store in {@code file}. */
  record Sqlite(Path file) implements StoreUrl {
    static Sqlite of(String path) {
      return new Sqlite(Path.of(path.isEmpty() ? DEFAULT_PATH : path));
    }

    @Override
    public String describe() {
      return "sqlite:" + file.toAbsolutePath().normalize();
    }
  }

  /**
   * PostgreSQL.
   *
   * @param jdbcUrl a pgjdbc URL without a password
   * @param credentials the passwords given (a parameter whose name ends in {@code password}: {@code
   *     password}, {@code sslpassword}), under their pgjdbc property names
   */
  record Postgres(String jdbcUrl, Properties credentials) implements StoreUrl {
    static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://");

    /**
     * One host of the list: a name or IPv4 address, or an IPv6 address in brackets, and an optional
     * port.
     */
    private static final Pattern HOST =
        Pattern.compile("([A-Za-z0-9._%-]+|\\[[0-9A-Fa-f:.%A-Za-z]+])(:[0-9]{1,5})?");

    /** Parses the part after the scheme: {@code //[userinfo@]hosts[/db][?params]}. */
    static Postgres of(String afterScheme) {
      if (!afterScheme.startsWith("//")) {
        throw new IllegalArgumentException(
            "PostgreSQL store URL must look like postgresql://host/db");
      }
      String rest = afterScheme.substring(2);
      int end = indexOfAny(rest, '/', '?');
      String authority = rest.substring(0, end);
      String tail = rest.substring(end);
      int q = tail.indexOf('?');
      String path = q >= 0 ? tail.substring(0, q) : tail;
      String query = q >= 0 ? tail.substring(q + 1) : "";
      int at = authority.lastIndexOf('@');
      String hosts = authority.substring(at + 1);
      checkHosts(hosts);

      List<String> params = new ArrayList<>();
      Properties credentials = new Properties();
      if (at >= 0) {
        takeUserInfo(authority.substring(0, at), params, credentials);
      }
      for (String param : query.split("&")) {
        int eq = param.indexOf('=');
        String name = (eq < 0 ? param : param.substring(0, eq)).toLowerCase(Locale.ROOT);
        if (eq > 0
            && name.endsWith(
                "password")) { // password, sslpassword: kept out of the URL, which is logged
          credentials.setProperty(name, decodeForm(param.substring(eq + 1)));
        } else if (!param.isEmpty()) {
          params.add(param);
        }
      }
      String url =
          "jdbc:postgresql://"
              + (hosts.isEmpty() ? "localhost" : hosts)
              + path
              + (params.isEmpty() ? "" : "?" + String.join("&", params));
      return new Postgres(url, credentials);
    }

    /**
     * A user name or password with a '/', '?' or '#' that is not percent-encoded ends the host part
     * early, so what is left there is part of a credential: refused without repeating it, since a
     * host list is otherwise shown in logs and errors.
     */
    private static void checkHosts(String hosts) {
      if (hosts.isEmpty()) {
        return;
      }
      for (String host : hosts.split(",", -1)) {
        if (!HOST.matcher(host).matches()) {
          throw new IllegalArgumentException(
              "PostgreSQL store URL: cannot read its host list (host[:port],...); percent-encode"
                  + " any '@', '/', '?', '#' or ':' in the user name or password (%40, %2F, %3F,"
                  + " %23, %3A)");
        }
      }
    }

    /** {@code user[:password]}: the user becomes a URL parameter, the password a property. */
    private static void takeUserInfo(String userInfo, List<String> params, Properties credentials) {
      int colon = userInfo.indexOf(':');
      String user = decode(colon >= 0 ? userInfo.substring(0, colon) : userInfo);
      if (!user.isEmpty()) {
        params.add("user=" + URLEncoder.encode(user, StandardCharsets.UTF_8));
      }
      if (colon >= 0) {
        credentials.setProperty("password", decode(userInfo.substring(colon + 1)));
      }
    }

    @Override
    public String describe() {
      return url(jdbcUrl);
    }

    private static String url(String jdbc) {
      return jdbc.substring("jdbc:".length());
    }

    private static int indexOfAny(String s, char a, char b) {
      for (int i = 0; i < s.length(); i++) {
        if (s.charAt(i) == a || s.charAt(i) == b) {
          return i;
        }
      }
      return s.length();
    }

    /** Percent-decoding that keeps '+' (user info is not form-encoded). */
    private static String decode(String s) {
      return decodeForm(s.replace("+", "%2B"));
    }

    /** Form decoding, as pgjdbc applies to query parameters. */
    private static String decodeForm(String s) {
      try {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        // The decoder's own message quotes the bad characters, which may belong to a password.
        throw new IllegalArgumentException("malformed percent-encoding in PostgreSQL store URL");
      }
    }
  }
}

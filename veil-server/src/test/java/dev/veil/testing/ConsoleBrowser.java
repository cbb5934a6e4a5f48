package dev.veil.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a browser does with the console, over a real socket: it keeps cookies, follows no redirect
 * by itself (tests look at each answer), sends forms as {@code application/x-www-form-urlencoded}
 * with the {@code Origin} header of the console's own pages (or another, to test refusals), and
 * reads the hidden fields of the last page. I/O failures are thrown unchecked.
 */
public final class ConsoleBrowser {
  private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"");
  private static final Pattern ONCE = Pattern.compile("name=\"once\" value=\"([^\"]+)\"");
  private static final Pattern TOKEN = Pattern.compile("name=\"token\" value=\"([^\"]+)\"");

  private final String origin;
  private final CookieManager cookies = new CookieManager();
  private final HttpClient client;
  private Page last;

  ConsoleBrowser(String origin) {
    this.origin = origin;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .cookieHandler(cookies)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  /** One answer: status, headers, body. */
  public record Page(int status, java.net.http.HttpHeaders headers, String body) {
    public String header(String name) {
      return headers.firstValue(name).orElse(null);
    }

    public List<String> setCookies() {
      return headers.allValues("set-cookie");
    }

    /** The redirect's target, or null. */
    public String location() {
      return header("location");
    }

    /** The value of the hidden field {@code name} of the first form that has it. */
    public String hidden(Pattern pattern) {
      Matcher m = pattern.matcher(body);
      if (!m.find()) {
        throw new AssertionError("no such hidden field on the page:\n" + body);
      }
      return m.group(1);
    }

    public String csrf() {
      return hidden(CSRF);
    }

    public String once() {
      return hidden(ONCE);
    }
  }

  public Page get(String pathAndQuery) {
    return send(HttpRequest.newBuilder(URI.create(origin + pathAndQuery)).GET());
  }

  /** A form of the console's own (Origin: the console), with the last page's CSRF token. */
  public Page post(String path, String... fields) {
    List<String> pairs = new ArrayList<>();
    boolean csrfGiven = false;
    for (int i = 0; i + 1 < fields.length; i += 2) {
      pairs.add(pair(fields[i], fields[i + 1]));
      csrfGiven |= fields[i].equals("csrf");
    }
    if (!csrfGiven) {
      pairs.add(0, pair("csrf", last == null ? "" : last.csrf()));
    }
    return send(path, origin, pairs);
  }

  /** A form sent with exactly {@code fields}, and the {@code Origin} given (null: none). */
  public Page postRaw(String path, String originHeader, Map<String, String> fields) {
    List<String> pairs = new ArrayList<>();
    fields.forEach((k, v) -> pairs.add(pair(k, v)));
    return send(path, originHeader, pairs);
  }

  private static String pair(String name, String value) {
    return URLEncoder.encode(name, StandardCharsets.UTF_8)
        + "="
        + URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private Page send(String path, String originHeader, List<String> pairs) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(origin + path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(String.join("&", pairs)));
    if (originHeader != null) {
      request.header("Origin", originHeader);
    }
    return send(request);
  }

  /** Signs in with {@code key} through the sign-in form; the overview's redirect. */
  public Page signIn(String key) {
    Page form = get("/sign-in");
    return postRaw("/sign-in", origin, Map.of("token", form.hidden(TOKEN), "key", key));
  }

  /** The last page answered. */
  public Page last() {
    return last;
  }

  public CookieManager cookies() {
    return cookies;
  }

  private Page send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          client.send(
              request.timeout(Duration.ofSeconds(30)).build(),
              HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      Page page = new Page(response.statusCode(), response.headers(), response.body());
      if (page.body().contains("name=\"csrf\"")) {
        last = page;
      }
      return page;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}

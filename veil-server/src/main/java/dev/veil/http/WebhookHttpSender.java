package dev.veil.http;

import dev.veil.webhook.WebhookSender;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@link WebhookSender} over the JDK's HTTP client: HTTP/1.1, no redirects followed (a redirect is
 * an answer other than 2xx), connecting and the whole answer each bounded by {@code timeout}, the
 * body read and discarded. The client keeps connections alive between requests, so concurrent
 * requests to one receiver reuse a few connections. Asynchronous: {@link #send} returns at once.
 */
public final class WebhookHttpSender implements WebhookSender {
  private static final String USER_AGENT = "veil-webhook/1";

  private final HttpClient client;
  private final Duration timeout;

  public WebhookHttpSender(Duration timeout) {
    this.timeout = timeout;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(timeout)
            .build();
  }

  @Override
  public CompletableFuture<Outcome> send(URI uri, Map<String, String> headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri).timeout(timeout).header("User-Agent", USER_AGENT).GET();
    headers.forEach(request::header);
    return client
        .sendAsync(request.build(), HttpResponse.BodyHandlers.discarding())
        .handle(
            (response, error) -> {
              if (error != null) {
                return Outcome.UNREACHABLE;
              }
              int status = response.statusCode();
              return status >= 200 && status < 300 ? Outcome.DELIVERED : Outcome.REFUSED;
            });
  }
}

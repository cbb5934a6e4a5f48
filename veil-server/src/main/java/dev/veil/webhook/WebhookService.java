package dev.veil.webhook;

import dev.veil.client.ClientService;
import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * Registers, lists and deletes opt-out webhooks (docs/spec.md 4.1). Decides what may be registered
 * (a valid {@link WebhookUrl}, an existing client) and creates each webhook's secret; delivery is
 * {@link WebhookDispatcher}'s. Every call reads or writes the store (webhooks are not held in
 * memory), so a webhook registered through any node is delivered by whichever node delivers.
 * Thread-safe.
 */
public final class WebhookService {
  private final WebhookStore store;
  private final ClientService clients;
  private final Clock clock;
  private final SecureRandom random;

  public WebhookService(
      WebhookStore store, ClientService clients, Clock clock, SecureRandom random) {
    this.store = store;
    this.clients = clients;
    this.clock = clock;
    this.random = random;
  }

  /** A new webhook and its secret, which is shown this once. */
  public record Created(Webhook webhook, WebhookSecret secret) {}

  /**
   * Registers a webhook for {@code clientId} that receives every opt-out recorded from now on.
   *
   * @throws VeilException {@code CLIENT_ERROR} for a URL that breaks a rule of {@link WebhookUrl},
   *     {@code NOT_FOUND} for an unknown client
   */
  public Created register(long clientId, String url) {
    WebhookUrl parsed = WebhookUrl.parse(url);
    if (clientId <= 0 || clients.registry().byId(clientId) == null) {
      throw new VeilException(ErrorCode.NOT_FOUND, "no client with id " + clientId);
    }
    WebhookSecret secret = WebhookSecret.generate(random);
    Instant now = clock.instant();
    return new Created(store.insert(clientId, parsed, secret, now), secret);
  }

  /** Every webhook not deleted, by id. */
  public List<Webhook> list() {
    return store.list();
  }

  /**
   * Deletes a webhook: nothing more is sent to it (a request in flight may still arrive).
   *
   * @throws VeilException {@code NOT_FOUND} if there is no such webhook (or it was deleted)
   */
  public void delete(long id) {
    if (!store.disable(id, clock.instant())) {
      throw new VeilException(ErrorCode.NOT_FOUND, "no webhook with id " + id);
    }
  }
}

package dev.veil.grpc;

import dev.veil.grpc.identity.admin.v1.Webhook;
import dev.veil.webhook.WebhookService;

/** Translates webhooks to {@code IdentityAdminApi} messages (never their secret). */
final class WebhookMessages {
  private WebhookMessages() {}

  static Webhook webhook(dev.veil.webhook.Webhook w) {
    return Webhook.newBuilder()
        .setId(w.id())
        .setClientId(w.clientId())
        .setUrl(w.url().text())
        .setCreatedMs(w.createdAt().toEpochMilli())
        .build();
  }

  static Webhook created(WebhookService.Created created) {
    return webhook(created.webhook());
  }
}

package dev.veil.webhook;

import java.time.Duration;

/**
 * What webhook delivery reports as it goes (metrics listen): called on the delivery thread, so an
 * implementation must be quick and must not block. Never given a webhook's URL, secret or an
 * advertising id.
 */
public interface DeliveryListener {
  /** One opt-out acknowledged by a receiver, {@code lag} after it was recorded. */
  void delivered(Duration lag);

  /** One request that did not deliver. */
  void failed(WebhookSender.Outcome outcome);

  /** A listener that ignores everything. */
  DeliveryListener NONE =
      new DeliveryListener() {
        @Override
        public void delivered(Duration lag) {}

        @Override
        public void failed(WebhookSender.Outcome outcome) {}
      };
}

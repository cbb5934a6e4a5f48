package dev.veil.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.MutableClock;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@link WebhookLane} with a store and a sender of the test's own: what it sends, when it retries,
 * where its cursor stands. Time is passed in as nanoseconds; nothing sleeps.
 */
class WebhookLaneTest {
  private static final Instant T0 = Instant.parse("2026-11-28T12:00:00Z");
  private static final long SECOND = 1_000_000_000L;

  private final MutableClock clock = new MutableClock(T0);
  private final FakeStore store = new FakeStore();
  private final List<Sent> sent = new ArrayList<>();
  private final List<WebhookLane.Completion> completions = new ArrayList<>();
  private final DeliverySettings settings =
      new DeliverySettings(
          Duration.ofMillis(500), Duration.ofSeconds(10), Duration.ofSeconds(4), 3, 100);

  private record Sent(
      URI uri, Map<String, String> headers, CompletableFuture<WebhookSender.Outcome> answer) {}

  private final WebhookLane lane =
      new WebhookLane(
          new WebhookStore.Registered(
              new Webhook(1, 7, WebhookUrl.parse("https://dsp.example/o"), T0),
              WebhookSecret.of(new byte[32]),
              LogPosition.START),
          store,
          (uri, headers) -> {
            CompletableFuture<WebhookSender.Outcome> f = new CompletableFuture<>();
            sent.add(new Sent(uri, headers, f));
            return f;
          },
          hash -> hash,
          clock,
          settings,
          DeliveryListener.NONE);

  /** Answers request {@code i} and hands the completion to the lane, as the dispatcher does. */
  private void answer(int i, WebhookSender.Outcome outcome, long nowNanos) {
    sent.get(i).answer().complete(outcome);
    for (WebhookLane.Completion c : List.copyOf(completions)) {
      c.lane().complete(c.item(), c.outcome(), nowNanos);
    }
    completions.clear();
  }

  @Test
  void sendsUpToTheConcurrency_signed_andMovesTheCursorOverTheAcknowledgedPrefixOnly() {
    store.add(5);

    lane.pump(0, completions::add);
    assertThat(sent).hasSize(3);
    assertThat(sent.get(0).headers()).containsKeys("X-Veil-Signature", "X-Veil-Timestamp");

    answer(1, WebhookSender.Outcome.DELIVERED, 0);
    lane.persistIfDue(0, true);
    assertThat(store.cursor).isEqualTo(LogPosition.START);

    answer(0, WebhookSender.Outcome.DELIVERED, 0);
    lane.persistIfDue(0, true);
    assertThat(store.cursor).isEqualTo(new LogPosition(0, 2));
  }

  @Test
  void aFailure_backsOff_retriesOnlyTheFailedOptOut_oneAtATime_andNeverResendsAnAck() {
    store.add(4);
    lane.pump(0, completions::add); // sends 1, 2, 3
    answer(0, WebhookSender.Outcome.REFUSED, 0);
    answer(1, WebhookSender.Outcome.DELIVERED, 0);
    answer(2, WebhookSender.Outcome.UNREACHABLE, 0); // after a success: a new 0.5 s backoff

    lane.pump(SECOND / 4, completions::add);
    assertThat(sent).hasSize(3); // still waiting out the first 0.5 s

    lane.pump(SECOND, completions::add);
    assertThat(sent).hasSize(4);
    assertThat(sent.get(3).uri()).isEqualTo(sent.get(0).uri()); // opt-out 1 again, alone

    answer(3, WebhookSender.Outcome.DELIVERED, SECOND);
    lane.pump(SECOND, completions::add);
    List<URI> resent = sent.subList(4, sent.size()).stream().map(Sent::uri).toList();
    assertThat(resent).contains(sent.get(2).uri()).doesNotContain(sent.get(1).uri());
  }

  @Test
  void consecutiveFailures_doubleTheWait_upToTheMaximum() {
    store.add(1);
    long now = 0;
    List<Long> waits = new ArrayList<>();
    for (int attempt = 0; attempt < 5; attempt++) {
      int before = sent.size();
      long t = now;
      while (sent.size() == before) {
        t += SECOND / 100;
        lane.pump(t, completions::add);
      }
      waits.add((t - now) / (SECOND / 100));
      now = t;
      answer(sent.size() - 1, WebhookSender.Outcome.REFUSED, now);
    }
    // in hundredths of a second: the first send at once, then 0.5, 1, 2, 4 (the maximum) seconds
    assertThat(waits).containsExactly(1L, 50L, 100L, 200L, 400L);
  }

  /** The opt-out log and one cursor, in memory. */
  private static final class FakeStore implements WebhookStore {
    final List<LoggedOptOut> log = new ArrayList<>();
    LogPosition cursor = LogPosition.START;

    void add(int count) {
      for (int i = 0; i < count; i++) {
        byte[] hash = new byte[32];
        hash[0] = (byte) (log.size() + 1);
        log.add(new LoggedOptOut(new LogPosition(0, log.size() + 1), hash, T0));
      }
    }

    @Override
    public List<LoggedOptOut> optOutsAfter(LogPosition after, int limit) {
      return log.stream().filter(o -> o.position().compareTo(after) > 0).limit(limit).toList();
    }

    @Override
    public boolean advance(long id, LogPosition to, Instant at) {
      if (to.compareTo(cursor) <= 0) {
        return false;
      }
      cursor = to;
      return true;
    }

    @Override
    public Webhook insert(long clientId, WebhookUrl url, WebhookSecret secret, Instant at) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<Webhook> list() {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<Registered> active() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean disable(long id, Instant at) {
      throw new UnsupportedOperationException();
    }
  }
}

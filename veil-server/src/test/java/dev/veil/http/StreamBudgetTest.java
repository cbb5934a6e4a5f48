package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.observability.Metrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StreamBudgetTest {
  private final Metrics metrics = new Metrics();
  private final StreamBudget budget =
      new StreamBudget(100, Duration.ofSeconds(30), metrics.counter("test_stalls_total", "stalls"));
  private final List<String> granted = new ArrayList<>();

  private StreamBudget.Request ask(String who, int bytes) {
    return budget.acquire(bytes, () -> granted.add(who));
  }

  @Test
  void acquire_withBytesAvailable_grantsAtOnce() {
    ask("a", 60);
    ask("b", 40);

    assertThat(granted).containsExactly("a", "b");
    assertThat(budget.held()).isEqualTo(100);
    assertThat(budget.waiting()).isZero();
  }

  @Test
  void acquire_beyondTheBudget_waitsUntilReleased_thenIsGrantedInOrder() {
    ask("a", 100);
    ask("b", 50);
    ask("c", 50);
    assertThat(granted).containsExactly("a");
    assertThat(budget.waiting()).isEqualTo(2);

    budget.release(100);

    assertThat(granted).containsExactly("a", "b", "c");
    assertThat(budget.held()).isEqualTo(100);
    assertThat(budget.waiting()).isZero();
  }

  @Test
  void aSmallRequest_thatWouldFit_stillWaitsBehindAnOlderOne() {
    ask("a", 60);
    ask("big", 50);
    ask("small", 10);

    assertThat(granted).as("no barging past the oldest waiting request").containsExactly("a");

    budget.release(60);
    assertThat(granted).containsExactly("a", "big", "small");
  }

  @Test
  void aStreamThatAsksAgain_goesBehindThoseAlreadyWaiting() {
    ask("a", 100);
    ask("b", 100);
    budget.release(100); // a's chunk was written: b's turn
    ask("a", 100);

    budget.release(100);
    assertThat(granted).containsExactly("a", "b", "a");
  }

  @Test
  void cancel_whileWaiting_withdrawsTheRequest_andLetsThoseBehindItThrough() {
    ask("a", 60);
    StreamBudget.Request gone = ask("gone", 50);
    ask("c", 40);

    assertThat(gone.cancel()).isTrue();

    assertThat(granted).containsExactly("a", "c");
    assertThat(budget.waiting()).isZero();
    budget.release(60);
    assertThat(granted).as("a withdrawn request is never granted").doesNotContain("gone");
  }

  @Test
  void cancel_afterTheGrant_saysSo_andTheBytesStayHeldUntilReleased() {
    StreamBudget.Request a = ask("a", 60);

    assertThat(a.cancel()).isFalse();
    assertThat(budget.held()).isEqualTo(60);
    budget.release(60);
    assertThat(budget.held()).isZero();
  }

  @Test
  void misuse_isRefused() {
    assertThatThrownBy(() -> ask("too big", 101)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ask("nothing", 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> budget.release(1)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void ofTheNode_registersItsGaugesAndStallCounter() {
    StreamBudget node =
        StreamBudget.of(
            dev.veil.testing.TestConfigs.config(
                "limits.stream-buffer-bytes", "65536", "http.stream-stall-timeout", "2s"),
            metrics);
    node.acquire(32768, () -> {});
    node.stalled();

    assertThat(node.stallTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(metrics.scrape())
        .contains("veil_http_stream_buffered_bytes 32768")
        .contains("veil_http_stream_waiting 0")
        .contains("veil_http_stream_stalls_total 1");
  }
}

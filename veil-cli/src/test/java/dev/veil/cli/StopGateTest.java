package dev.veil.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.cli.ServeCommand.StopGate;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A SIGTERM closes the node exactly once, whether it comes before, during or after the start. */
class StopGateTest {
  private final StopGate gate = new StopGate();
  private final AtomicInteger closed = new AtomicInteger();

  @Test
  void aStopAfterTheStart_closesTheNode_andReleasesTheWaitingMainThread() throws Exception {
    assertThat(gate.started(closed::incrementAndGet)).isTrue();
    CompletableFuture<Void> main = CompletableFuture.runAsync(gate::awaitStopped);

    gate.stop();

    main.get(10, TimeUnit.SECONDS);
    assertThat(closed).hasValue(1);
  }

  @Test
  void aStopDuringTheStart_waitsForIt_andTheStartingThreadClosesTheNode() throws Exception {
    CompletableFuture<Void> hook = CompletableFuture.runAsync(gate::stop);
    assertThat(waitsAtLeast(hook, Duration.ofMillis(200)))
        .as("the hook waits for the start to end")
        .isTrue();

    assertThat(gate.started(closed::incrementAndGet)).as("told that a stop came").isFalse();

    hook.get(10, TimeUnit.SECONDS);
    assertThat(closed).hasValue(1);
  }

  @Test
  void aStopDuringAStartThatFails_returnsOnceTheStartHasFailed() throws Exception {
    CompletableFuture<Void> hook = CompletableFuture.runAsync(gate::stop);
    assertThat(waitsAtLeast(hook, Duration.ofMillis(200))).isTrue();

    gate.startFailed();

    hook.get(10, TimeUnit.SECONDS);
    assertThat(closed).hasValue(0);
  }

  /** True if {@code hook} is still running after {@code time} (it should be blocked, not done). */
  private static boolean waitsAtLeast(CompletableFuture<Void> hook, Duration time) {
    try {
      hook.get(time.toMillis(), TimeUnit.MILLISECONDS);
      return false;
    } catch (TimeoutException e) {
      return true;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}

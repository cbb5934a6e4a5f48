package dev.veil.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.common.StoreUnavailableException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OutageBreakerTest {
  private final AtomicLong nanos = new AtomicLong(1_000);
  private final OutageBreaker breaker = new OutageBreaker(Duration.ofSeconds(1), nanos::get);

  @Test
  void closed_letsEveryCallThrough() {
    for (int i = 0; i < 3; i++) {
      breaker.beforeCall("read", "pg");
    }
    assertThat(breaker.isOpen()).isFalse();
  }

  @Test
  void statementFailures_doNotOpenIt() {
    breaker.failed(new SQLException("duplicate key", "23505"));
    breaker.failed(new SQLException("canceling statement due to statement timeout", "57014"));
    breaker.failed(new SQLException("no state"));
    assertThat(breaker.isOpen()).isFalse();
    breaker.beforeCall("write", "pg");
  }

  @Test
  void aConnectionFailure_opens_andLaterCallsFailAtOnce_namingTheOperationAndStore() {
    breaker.failed(new SQLException("Connection refused", "08001"));

    assertThat(breaker.isOpen()).isTrue();
    assertThatThrownBy(() -> breaker.beforeCall("record opt-out", "postgresql://db/veil"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("record opt-out")
        .hasMessageContaining("postgresql://db/veil")
        .hasMessageContaining("unreachable");
  }

  @Test
  void whileOpen_oneCallPerRetryIntervalProbes_andASuccessCloses() {
    breaker.failed(new SQLTransientConnectionException("pool timeout"));
    nanos.addAndGet(Duration.ofMillis(999).toNanos());
    assertThatThrownBy(() -> breaker.beforeCall("read", "pg"))
        .isInstanceOf(StoreUnavailableException.class);

    nanos.addAndGet(Duration.ofMillis(1).toNanos());
    breaker.beforeCall("read", "pg"); // the probe
    assertThatThrownBy(() -> breaker.beforeCall("write", "pg"))
        .as("only one probe per interval")
        .isInstanceOf(StoreUnavailableException.class);

    breaker.succeeded();
    assertThat(breaker.isOpen()).isFalse();
    breaker.beforeCall("write", "pg");
  }

  @Test
  void aFailedProbe_keepsItOpenForAnotherInterval() {
    breaker.failed(
        new SQLException("terminating connection due to administrator command", "57P01"));
    nanos.addAndGet(Duration.ofSeconds(1).toNanos());
    breaker.beforeCall("read", "pg");
    breaker.failed(new SQLException("the database system is starting up", "57P03"));

    nanos.addAndGet(Duration.ofMillis(500).toNanos());
    assertThatThrownBy(() -> breaker.beforeCall("read", "pg"))
        .isInstanceOf(StoreUnavailableException.class);
    nanos.addAndGet(Duration.ofMillis(500).toNanos());
    breaker.beforeCall("read", "pg");
  }

  @Test
  void connectionFailures_areRecognisedBySqlState() {
    assertThat(OutageBreaker.isConnectionFailure(new SQLException("io", "08006"))).isTrue();
    assertThat(OutageBreaker.isConnectionFailure(new SQLException("crash", "57P02"))).isTrue();
    assertThat(OutageBreaker.isConnectionFailure(new SQLException("too many", "53300"))).isTrue();
    assertThat(OutageBreaker.isConnectionFailure(new SQLException("disk full", "53100"))).isFalse();
    assertThat(OutageBreaker.isConnectionFailure(new SQLException("syntax", "42601"))).isFalse();
  }

  @Test
  void whileTheBackgroundPollRuns_itProbes_notARequest_soNoRequestWaitsOutASilentDatabase() {
    SQLException silent = new SQLException("read timed out", "08006");
    breaker.failed(silent);
    nanos.addAndGet(1_000_000_000L);
    breaker.beforeBackgroundCall("catch-up", "pg"); // the probe: it waits out the timeout
    nanos.addAndGet(5_000_000_000L);
    breaker.failed(silent);
    breaker.backgroundCallEnded();
    nanos.addAndGet(
        1_100_000_000L); // a probe is due again, and the poll's next round is about to start

    assertThatThrownBy(() -> breaker.beforeCall("record opt-out", "pg"))
        .isInstanceOf(StoreUnavailableException.class);
    breaker.beforeBackgroundCall("catch-up", "pg"); // the poll takes the probe
    breaker.succeeded();
    breaker.backgroundCallEnded();
    breaker.beforeCall("record opt-out", "pg"); // closed again
    assertThat(breaker.isOpen()).isFalse();
  }

  @Test
  void whenNoBackgroundCallHasRunForAWhile_aRequestProbes() {
    breaker.beforeBackgroundCall("catch-up", "pg");
    breaker.backgroundCallEnded();
    breaker.failed(new SQLException("Connection refused", "08001"));
    nanos.addAndGet(OutageBreaker.BACKGROUND_GRACE_INTERVALS * 1_000_000_000L);

    breaker.beforeCall("record opt-out", "pg"); // the probe
    assertThatThrownBy(() -> breaker.beforeCall("record opt-out", "pg"))
        .isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void whileABackgroundProbeIsStillWaiting_evenLong_noRequestProbes() {
    breaker.failed(new SQLException("read timed out", "08006"));
    nanos.addAndGet(1_000_000_000L);
    breaker.beforeBackgroundCall("catch-up", "pg"); // the probe, into a silent network
    nanos.addAndGet(12_000_000_000L); // still waiting, well past the grace after its start

    assertThatThrownBy(() -> breaker.beforeCall("record opt-out", "pg"))
        .isInstanceOf(StoreUnavailableException.class);
    breaker.failed(new SQLException("read timed out", "08006"));
    breaker.backgroundCallEnded();
    nanos.addAndGet(OutageBreaker.BACKGROUND_GRACE_INTERVALS * 1_000_000_000L);
    breaker.beforeCall("record opt-out", "pg"); // no poll for a while: a request may probe
  }
}

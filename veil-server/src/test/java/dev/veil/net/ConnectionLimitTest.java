package dev.veil.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.observability.Metrics;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConnectionLimitTest {
  private final Metrics metrics = new Metrics();
  private final List<String> closed = new ArrayList<>();

  private ConnectionSlot admit(ConnectionLimit limit, String name) {
    return limit.admit(() -> closed.add(name));
  }

  /** A connection that has waited since {@code nanoTime}, after an answer. */
  private ConnectionSlot waitingSince(ConnectionLimit limit, String name, long nanoTime) {
    ConnectionSlot slot = admit(limit, name);
    slot.busy();
    slot.waiting(nanoTime);
    return slot;
  }

  private ConnectionSlot busy(ConnectionLimit limit, String name) {
    ConnectionSlot slot = admit(limit, name);
    slot.busy();
    return slot;
  }

  @Test
  void upToTheHighWaterMark_everyConnectionIsAdmitted_andAReleaseGivesThePlaceBack() {
    ConnectionLimit limit = new ConnectionLimit(16, metrics); // high water: 16 - 16 / 4 = 12
    List<ConnectionSlot> slots = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      slots.add(admit(limit, "c" + i));
    }

    assertThat(closed).isEmpty();
    assertThat(limit.open()).isEqualTo(12);
    slots.get(0).release();
    slots.get(0).release();
    assertThat(limit.open()).isEqualTo(11);
  }

  @Test
  void aboveTheHighWaterMark_theLongestWaitingConnectionIsShed_neverABusyOne() {
    ConnectionLimit limit = new ConnectionLimit(8, metrics); // high water: 6
    busy(limit, "busy since long");
    ConnectionSlot older = waitingSince(limit, "older", 100);
    waitingSince(limit, "newer", 200);
    for (int i = 0; i < 3; i++) {
      busy(limit, "busy" + i);
    }

    ConnectionSlot incoming = admit(limit, "incoming");

    assertThat(incoming).isNotNull();
    assertThat(closed).containsExactly("older");
    assertThat(older.busy()).as("a shed connection's request is not served").isFalse();
    assertThat(limit.open()).as("the shed one holds its place until it has closed").isEqualTo(7);
    older.release();
    assertThat(limit.open()).isEqualTo(6);
    assertThat(metrics.scrape())
        .contains(
            "veil_connections_shed_total 1", "veil_connections_open 6", "veil_connections_max 8");
  }

  @Test
  void atTheLimit_aNewcomerIsRefused_andAWaitingConnectionIsShedForTheNextOne() {
    ConnectionLimit limit = new ConnectionLimit(2, metrics); // high water: 1
    busy(limit, "a");
    ConnectionSlot b = busy(limit, "b");

    assertThat(admit(limit, "c")).as("both busy").isNull();
    assertThat(closed).isEmpty();

    b.waiting(System.nanoTime());
    assertThat(admit(limit, "d")).as("b is still open").isNull();
    assertThat(closed).containsExactly("b");
    b.release();
    assertThat(admit(limit, "e")).isNotNull();
    assertThat(metrics.scrape())
        .contains("veil_connections_refused_total 2", "veil_connections_shed_total 1");
  }

  @Test
  void aLargeLimit_shedsABatchOfTheOldest_soFewerSearchesRunUnderAFlood() {
    ConnectionLimit limit = new ConnectionLimit(128, metrics); // high water: 96, batch: 2
    for (int i = 0; i < 96; i++) {
      waitingSince(limit, "c" + i, i);
    }

    admit(limit, "new");
    admit(limit, "next");

    assertThat(closed).containsExactlyInAnyOrder("c0", "c1");
  }

  @Test
  void aCloseThatFails_doesNotFailTheNewcomer() {
    ConnectionLimit limit = new ConnectionLimit(2, metrics);
    limit.admit(
        () -> {
          throw new IllegalStateException("not registered yet");
        });

    assertThat(admit(limit, "new")).isNotNull();
    assertThat(limit.open()).isEqualTo(2);
  }

  @Test
  void aLimitBelowOne_isRefused() {
    assertThatThrownBy(() -> new ConnectionLimit(0, metrics))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theDescriptorBudget_leavesWhatTheNodeHoldsAndAReserve() {
    assertThat(new DescriptorBudget(20_000, 130).connections()).isEqualTo(20_000 - 130 - 2_000);
    assertThat(new DescriptorBudget(256, 130).connections()).isEqualTo(256 - 130 - 64);
    assertThat(new DescriptorBudget(150, 130).connections())
        .isEqualTo(DescriptorBudget.MIN_CONNECTIONS);
    assertThat(new DescriptorBudget(-1, -1).connections())
        .isEqualTo(DescriptorBudget.UNKNOWN_CONNECTIONS);
    assertThat(DescriptorBudget.ofThisProcess().connections()).isPositive();
  }
}

package dev.veil.sdk;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test moves by hand. Thread-safe. */
final class TestClock extends Clock {
  private volatile Instant now;

  TestClock(Instant start) {
    this.now = start;
  }

  void advance(Duration d) {
    synchronized (this) {
      now = now.plus(d);
    }
  }

  void set(Instant instant) {
    now = instant;
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}

package dev.veil.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that tests move by hand, so no test sleeps. Thread-safe. */
public final class MutableClock extends Clock {
  private volatile Instant now;

  public MutableClock(Instant start) {
    this.now = start;
  }

  public static MutableClock at(String isoInstant) {
    return new MutableClock(Instant.parse(isoInstant));
  }

  public synchronized void advance(Duration d) {
    now = now.plus(d);
  }

  public void set(Instant instant) {
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

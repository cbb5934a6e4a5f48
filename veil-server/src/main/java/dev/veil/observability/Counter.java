package dev.veil.observability;

import java.util.concurrent.atomic.LongAdder;

/** A monotonically increasing count, created by {@link Metrics#counter}. Thread-safe. */
public final class Counter {
  private final String name;
  private final String help;
  private final LongAdder value = new LongAdder();

  Counter(String name, String help) {
    this.name = name;
    this.help = help;
  }

  public void inc() {
    value.increment();
  }

  /** Adds {@code n}, which must not be negative. */
  public void add(long n) {
    if (n < 0) {
      throw new IllegalArgumentException("a counter only increases");
    }
    value.add(n);
  }

  public long get() {
    return value.sum();
  }

  String name() {
    return name;
  }

  void write(StringBuilder out) {
    Metrics.appendHelp(out, name, help, "counter");
    out.append(name).append(' ').append(value.sum()).append('\n');
  }
}

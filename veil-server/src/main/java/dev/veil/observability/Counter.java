package dev.veil.observability;

import java.util.concurrent.atomic.LongAdder;

/**
 * A monotonically increasing count, created by {@link Metrics#counter} or as a member of a {@link
 * CounterFamily}. Thread-safe; {@link #inc} and {@link #add} allocate nothing.
 */
public final class Counter {
  private final String name;
  private final String help;
  private final String labels;
  private final LongAdder value = new LongAdder();

  Counter(String name, String help) {
    this(name, help, "");
  }

  /** A member of a family: {@code labels} is its rendered label set ({@link Metrics#labels}). */
  Counter(String name, String help, String labels) {
    this.name = name;
    this.help = help;
    this.labels = labels;
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

  String labels() {
    return labels;
  }

  void write(StringBuilder out) {
    Metrics.appendHelp(out, name, help, "counter");
    writeSample(out);
  }

  void writeSample(StringBuilder out) {
    out.append(name).append(labels).append(' ').append(value.sum()).append('\n');
  }
}

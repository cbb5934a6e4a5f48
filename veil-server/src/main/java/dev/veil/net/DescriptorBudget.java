package dev.veil.net;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * How many connections the process's file descriptors allow: the descriptor limit, less those open
 * when the node starts (class path, store, logs, the JVM's own), less a reserve of a tenth of the
 * limit and at least {@value #MIN_RESERVE} for what the node opens later (event loops started after
 * this is read, store files and pooled database connections, class-path entries read on first use).
 * Read once, at start, from the JVM (HotSpot on Linux and macOS raises its soft limit to the hard
 * one as it starts, so this is the hard limit of whoever started it). Where the JVM does not tell,
 * {@value #UNKNOWN_CONNECTIONS} connections. Never fewer than {@value #MIN_CONNECTIONS}.
 */
record DescriptorBudget(long limit, long open) {
  static final int MIN_RESERVE = 64;
  static final int MIN_CONNECTIONS = 8;
  static final int UNKNOWN_CONNECTIONS = 10_000;

  /** This process's limit and use now; -1 for what the JVM does not tell. */
  static DescriptorBudget ofThisProcess() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof UnixOperatingSystemMXBean unix) {
      return new DescriptorBudget(
          unix.getMaxFileDescriptorCount(), unix.getOpenFileDescriptorCount());
    }
    return new DescriptorBudget(-1, -1);
  }

  /** The connections these descriptors allow. */
  int connections() {
    if (limit <= 0 || open < 0) {
      return UNKNOWN_CONNECTIONS;
    }
    long reserve = Math.max(MIN_RESERVE, limit / 10);
    return (int) Math.min(Integer.MAX_VALUE, Math.max(MIN_CONNECTIONS, limit - open - reserve));
  }

  String limitText() {
    return limit <= 0 ? "unknown" : Long.toString(limit);
  }

  String openText() {
    return open < 0 ? "unknown" : Long.toString(open);
  }
}

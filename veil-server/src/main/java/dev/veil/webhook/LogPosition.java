package dev.veil.webhook;

/**
 * A position in the opt-out log as webhook delivery reads it: opt-outs come in ascending {@code
 * (xid, seq)} order. On the embedded store {@code xid} is always 0 and {@code seq} is the opt-out's
 * change sequence number; on PostgreSQL {@code xid} is the id of the transaction that wrote it. A
 * webhook's cursor is the position of the last opt-out its receiver acknowledged; delivery
 * continues with the opt-outs after it.
 */
public record LogPosition(long xid, long seq) implements Comparable<LogPosition> {
  /** Before every opt-out. */
  public static final LogPosition START = new LogPosition(0, 0);

  public LogPosition {
    if (xid < 0 || seq < 0) {
      throw new IllegalArgumentException("log positions are not negative");
    }
  }

  @Override
  public int compareTo(LogPosition other) {
    int byXid = Long.compare(xid, other.xid);
    return byXid != 0 ? byXid : Long.compare(seq, other.seq);
  }
}

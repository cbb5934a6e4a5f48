package dev.veil.deduction;

/**
 * A place in the deduction change log's order: after the entries up to and including it. The
 * embedded store orders by {@code seq} alone ({@code xid} is 0); PostgreSQL by the writing
 * transaction's id, then {@code seq} (see {@code dev.veil.storage.JdbcDeductionStore}).
 */
public record EventPosition(long xid, long seq) implements Comparable<EventPosition> {
  /** Before the first entry. */
  public static final EventPosition START = new EventPosition(0, 0);

  public EventPosition {
    if (xid < 0 || seq < 0) {
      throw new IllegalArgumentException("a log position is not negative");
    }
  }

  @Override
  public int compareTo(EventPosition o) {
    int byXid = Long.compare(xid, o.xid);
    return byXid != 0 ? byXid : Long.compare(seq, o.seq);
  }
}

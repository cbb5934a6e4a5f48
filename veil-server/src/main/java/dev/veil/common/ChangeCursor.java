package dev.veil.common;

/**
 * Where a reader stands in a {@link ChangeFeed}: the value one read returns and the next read
 * takes. Opaque outside the store that made it (the embedded store keeps the highest change
 * sequence number read, PostgreSQL a transaction-id watermark; see {@code dev.veil.storage}), so
 * callers only keep it and pass it back. Cursors of different tables or stores are not comparable.
 *
 * @param position the store's encoding; {@code 0} is {@link #START} for every store
 */
public record ChangeCursor(long position) {
  /** Before the first row: a read from here delivers every row. */
  public static final ChangeCursor START = new ChangeCursor(0);

  public ChangeCursor {
    if (position < 0) {
      throw new IllegalArgumentException(
          "change cursor position must not be negative: " + position);
    }
  }
}

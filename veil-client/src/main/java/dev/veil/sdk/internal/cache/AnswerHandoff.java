package dev.veil.sdk.internal.cache;

import dev.veil.core.text.ByteScan;
import dev.veil.sdk.internal.MapAnswer;
import dev.veil.sdk.internal.ValueList;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Answers of a mapping run handed to a CSV export that follows the run ({@link
 * MappingStore#writeCsv}), so that the export writes their rows from the answers' bytes rather than
 * reading the records it just stored back from the file. Only an optimization: an entry whose
 * answer is not here (none was handed over, the export fell behind and the handoff was full, or the
 * entry was mapped again since) is read from the file as before, and an answer is used for an entry
 * only if the entry's current {@code MAP} record is the one stored from that answer.
 *
 * <p>Open only while an export follows a run, and holds at most {@value #MAX_ANSWERS} answers
 * (about a megabyte each), so it never keeps more than a few answers from being collected. A saver
 * that finds it full waits a moment for the export to take one ({@link #awaitRoom}), unless the
 * export waits for the run itself: on a client with one core the export, one thread among the
 * run's, otherwise fell behind and read up to four fifths of a million-identifier v3 run's rows
 * back from the file. Thread-safe: the saver offers, the export takes.
 */
final class AnswerHandoff {
  static final int MAX_ANSWERS = 6;

  /**
   * One stored answer: its entries (ascending), where each one's {@code MAP} record went (-1:
   * none).
   */
  static final class Stored {
    final PendingBatch part;
    final MapAnswer answer;
    final long[] mapAt;
    private int plainCsv = -1;

    Stored(PendingBatch part, MapAnswer answer, long[] mapAt) {
      this.part = part;
      this.answer = answer;
      this.mapAt = mapAt;
    }

    /**
     * Whether every field of its rows can be written as it is (no value sent and no id holds a CSV
     * special): then rows are copied without a check per field. Asked by the export only.
     */
    boolean plainCsv() {
      if (plainCsv < 0) {
        ValueList values = part.values();
        int end = values.size() == 0 ? 0 : values.end(values.size() - 1);
        plainCsv = answer.idsPlainCsv() && ByteScan.csvSpecial(values.bytes(), 0, end) < 0 ? 1 : 0;
      }
      return plainCsv == 1;
    }

    int firstEntry() {
      return part.entry(0);
    }

    int lastEntry() {
      return part.lastEntry();
    }
  }

  /** Longest wait of {@link #awaitRoom} for one answer. */
  static final long ROOM_WAIT_NANOS = 200_000_000L;

  private final List<Stored> waiting = new ArrayList<>();
  private volatile boolean open;
  private boolean exportWaits;

  synchronized void open() {
    open = true;
    exportWaits = false;
  }

  /** Whether an export follows (an offer is then worth making). */
  boolean isOpen() {
    return open;
  }

  synchronized void close() {
    open = false;
    waiting.clear();
    notifyAll();
  }

  /**
   * The export waits for the run (it has written every row it can) or goes on: while it waits, the
   * answers held are for entries after the one it waits for, and only a new answer can move it on,
   * so a saver must not wait for room.
   */
  synchronized void exportWaits(boolean waits) {
    exportWaits = waits;
    if (waits) {
      notifyAll();
    }
  }

  /**
   * Waits, at most {@link #ROOM_WAIT_NANOS}, until the handoff has room for an answer, while an
   * export follows and is busy writing rows: the run then goes at the pace of the export, which
   * writes the rows of the answers it takes, instead of storing answers the export would have to
   * read back from the file. Returns at once when no export follows, when there is room, or when
   * the export waits for the run.
   */
  void awaitRoom() {
    awaitRoom(ROOM_WAIT_NANOS);
  }

  /** As {@link #awaitRoom()}, waiting at most {@code timeoutNanos}. */
  synchronized void awaitRoom(long timeoutNanos) {
    long deadline = System.nanoTime() + timeoutNanos;
    boolean interrupted = false;
    try {
      long left;
      while (open
          && !exportWaits
          && waiting.size() >= MAX_ANSWERS
          && (left = deadline - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        } catch (InterruptedException e) {
          interrupted = true; // a run is not stopped by an interrupt here; the flag is kept
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Hands over an answer just stored, if an export follows and has room. */
  synchronized void offer(PendingBatch part, MapAnswer answer, long[] mapAt) {
    if (open && !part.isEmpty() && waiting.size() < MAX_ANSWERS) {
      waiting.add(new Stored(part, answer, mapAt));
    }
  }

  /**
   * Takes out the waiting answer with the lowest first entry among those that reach {@code entry}
   * or beyond; answers wholly before {@code entry} are dropped (the export has passed them).
   */
  synchronized Stored next(int entry) {
    Stored best = null;
    for (int i = waiting.size() - 1; i >= 0; i--) {
      Stored s = waiting.get(i);
      if (s.lastEntry() < entry) {
        waiting.remove(i);
      } else if (best == null || s.firstEntry() < best.firstEntry()) {
        best = s;
      }
    }
    if (best != null) {
      waiting.remove(best);
    }
    notifyAll(); // room, if anything was taken or dropped
    return best;
  }

  /**
   * The export's side: walks entries in ascending order and finds each one's answer, if handed
   * over.
   */
  static final class Reader {
    private final AnswerHandoff handoff;
    private Stored current;
    private int index;

    Reader(AnswerHandoff handoff) {
      this.handoff = handoff;
    }

    /**
     * The answer of {@code entry} if it was handed over and {@code mapAt} is still the record
     * stored from it (then {@link #stored()} and {@link #index()} locate it), else false. Entries
     * must come in ascending order.
     */
    boolean find(int entry, long mapAt) {
      if (current == null || current.lastEntry() < entry) {
        current = handoff.next(entry);
        index = 0;
        if (current == null) {
          return false;
        }
      }
      if (current.firstEntry() > entry) {
        return false; // an answer for later entries: kept for them
      }
      PendingBatch part = current.part;
      while (index < part.size() && part.entry(index) < entry) {
        index++;
      }
      return index < part.size() && part.entry(index) == entry && current.mapAt[index] == mapAt;
    }

    Stored stored() {
      return current;
    }

    int index() {
      return index;
    }
  }
}

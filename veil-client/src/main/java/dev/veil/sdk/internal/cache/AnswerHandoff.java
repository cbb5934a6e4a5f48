package dev.veil.sdk.internal.cache;

import dev.veil.core.text.ByteScan;
import dev.veil.sdk.internal.MapAnswer;
import dev.veil.sdk.internal.ValueList;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers of a mapping run handed to a CSV export that follows the run ({@link
 * MappingStore#writeCsv}), so that the export writes their rows from the answers' bytes rather than
 * reading the records it just stored back from the file. Only an optimization: an entry whose
 * answer is not here (none was handed over, the export fell behind and the handoff was full, or the
 * entry was mapped again since) is read from the file as before, and an answer is used for an entry
 * only if the entry's current {@code MAP} record is the one stored from that answer.
 *
 * <p>Open only while an export follows a run, and holds at most {@value #MAX_ANSWERS} answers
 * (about a megabyte each), so it never keeps more than a few answers from being collected.
 * Thread-safe: the saver offers, the export takes.
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

  private final List<Stored> waiting = new ArrayList<>();
  private volatile boolean open;

  synchronized void open() {
    open = true;
  }

  /** Whether an export follows (an offer is then worth making). */
  boolean isOpen() {
    return open;
  }

  synchronized void close() {
    open = false;
    waiting.clear();
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

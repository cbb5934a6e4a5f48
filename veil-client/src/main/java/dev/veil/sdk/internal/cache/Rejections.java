package dev.veil.sdk.internal.cache;

import dev.veil.sdk.Identifier;
import dev.veil.sdk.Rejection;
import java.io.IOException;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads {@code REJECT} records: each identifier once, with its latest reason, in the order of
 * those.
 */
final class Rejections {
  private Rejections() {}

  static Collection<Rejection> latest(LogReader reader, long[] positions) throws IOException {
    Map<Identifier, Rejection> latest = new LinkedHashMap<>();
    for (long at : positions) {
      Rejection r = read(reader.record(at));
      latest.remove(r.identifier());
      latest.put(r.identifier(), r);
    }
    return latest.values();
  }

  static Rejection read(Records.Cursor c) {
    c.u8();
    int kind = c.u8();
    int reason = c.u8();
    long at = c.int64();
    Identifier id = Identifier.of(KindCode.kind(kind), c.text(c.varint32()));
    return new Rejection(id, ReasonCode.reason(reason), Instant.ofEpochMilli(at));
  }
}

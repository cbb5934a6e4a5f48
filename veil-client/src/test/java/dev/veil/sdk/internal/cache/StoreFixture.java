package dev.veil.sdk.internal.cache;

import dev.veil.sdk.CachedMapping;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.Rejection;
import dev.veil.sdk.internal.MapAnswer;
import dev.veil.sdk.internal.MapJson;
import dev.veil.sdk.internal.ValueList;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;

/** Building blocks for store tests: identifiers, answers like a server's, and the visible state. */
final class StoreFixture {
  static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

  private StoreFixture() {}

  static List<Identifier> emails(int from, int to) {
    return IntStream.range(from, to)
        .mapToObj(i -> Identifier.email("user" + i + "@example.com"))
        .toList();
  }

  /** A deterministic advertising id for a value and a salt generation. */
  static String advertisingId(String value, int generation) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest((value + "/" + generation).getBytes(StandardCharsets.UTF_8));
      return Base64.getEncoder().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String bucketOf(String value) {
    return "b" + Math.floorMod(value.hashCode(), 8);
  }

  /**
   * The answer a server would give: every value mapped (generation {@code generation}) except
   * {@code optedOut}.
   */
  static MapAnswer answer(ValueList sent, int generation, Set<String> optedOut) {
    StringBuilder mapped = new StringBuilder();
    StringBuilder unmapped = new StringBuilder();
    for (int i = 0; i < sent.size(); i++) {
      String v = sent.text(i);
      if (optedOut.contains(v)) {
        unmapped
            .append(unmapped.length() == 0 ? "" : ",")
            .append("{\"identifier\":\"")
            .append(v)
            .append("\",\"reason\":\"optout\"}");
      } else {
        mapped
            .append(mapped.length() == 0 ? "" : ",")
            .append("{\"identifier\":\"")
            .append(v)
            .append("\",\"advertising_id\":\"")
            .append(advertisingId(v, generation))
            .append("\",\"bucket_id\":\"")
            .append(bucketOf(v))
            .append("\"}");
      }
    }
    String json =
        "{\"status\":\"success\",\"body\":{\"mapped\":["
            + mapped
            + "]"
            + (unmapped.length() > 0 ? ",\"unmapped\":[" + unmapped + "]" : "")
            + "}}";
    try {
      return MapJson.answer(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), sent);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Maps every pending entry in batches of {@code batch}, at {@code mappedAt}; returns how many
   * were sent.
   */
  static int mapAll(
      MappingStore store, int batch, int generation, Instant mappedAt, Set<String> optedOut) {
    int sent = 0;
    int after = -1;
    for (PendingBatch pending = store.pending(after, batch);
        !pending.isEmpty();
        pending = store.pending(after, batch)) {
      store.apply(pending, answer(pending.values(), generation, optedOut), mappedAt, mappedAt);
      sent += pending.size();
      after = pending.lastEntry();
    }
    return sent;
  }

  /** Everything a user of the store can see, comparable with equals. */
  record State(
      long size,
      long pending,
      List<String> mappings,
      List<String> rejections,
      TreeMap<String, String> meta) {}

  static State state(MappingStore store, String... metaKeys) {
    List<String> mappings = new ArrayList<>();
    store.forEach(m -> mappings.add(describe(m)));
    List<String> rejections = new ArrayList<>();
    store.forEachRejection(r -> rejections.add(describe(r)));
    TreeMap<String, String> meta = new TreeMap<>();
    for (String key : metaKeys) {
      store.meta(key).ifPresent(v -> meta.put(key, v));
    }
    return new State(store.size(), store.todoCount(), mappings, rejections, meta);
  }

  static String describe(CachedMapping m) {
    return m.identifier().kind()
        + ":"
        + m.identifier().value()
        + "="
        + m.advertisingId()
        + "/"
        + m.bucketId()
        + "@"
        + m.mappedAt().toEpochMilli()
        + (m.previousAdvertisingId() != null ? " previous " + m.previousAdvertisingId() : "")
        + (m.refreshFrom() != null ? " refresh " + m.refreshFrom().getEpochSecond() : "")
        + (m.stale() ? " stale" : "");
  }

  static String describe(Rejection r) {
    return r.identifier().kind()
        + ":"
        + r.identifier().value()
        + " "
        + r.reason()
        + "@"
        + r.at().toEpochMilli();
  }
}

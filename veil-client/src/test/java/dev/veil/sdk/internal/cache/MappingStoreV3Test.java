package dev.veil.sdk.internal.cache;

import static dev.veil.sdk.internal.cache.StoreFixture.T0;
import static dev.veil.sdk.internal.cache.StoreFixture.advertisingId;
import static dev.veil.sdk.internal.cache.StoreFixture.emails;
import static dev.veil.sdk.internal.cache.StoreFixture.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.CachedMapping;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.MapOutcome;
import dev.veil.sdk.Rejection;
import dev.veil.sdk.internal.MapAnswer;
import dev.veil.sdk.internal.MapV3Json;
import dev.veil.sdk.internal.ValueList;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store's v3 records ({@code MAP3}: previous id and refresh time, no bucket id), what a refresh
 * on v3 does with them (entries due, opt-outs found by advertising id), and their survival across
 * reopening, a cut tail and compaction.
 */
class MappingStoreV3Test {
  @TempDir Path dir;

  /** Refresh times: entry i is due {@code i} days after T0. */
  private static long refreshSeconds(int i) {
    return T0.plus(Duration.ofDays(i)).getEpochSecond();
  }

  /**
   * A v3 answer as a server gives it: every even entry with a previous id; {@code optedOut} not.
   */
  static MapAnswer v3Answer(ValueList sent, int generation, Set<String> optedOut) {
    StringBuilder json = new StringBuilder("{\"status\":\"success\",\"body\":{\"email\":[");
    for (int i = 0; i < sent.size(); i++) {
      String v = sent.text(i);
      int n = Integer.parseInt(v.substring(4, v.indexOf('@')));
      json.append(i == 0 ? "" : ",");
      if (optedOut.contains(v)) {
        json.append("{\"e\":\"optout\"}");
        continue;
      }
      json.append("{\"u\":\"").append(advertisingId(v, generation)).append("\",\"p\":");
      json.append(n % 2 == 0 ? "\"" + advertisingId(v, generation - 1) + "\"" : "null");
      json.append(",\"r\":").append(refreshSeconds(n)).append('}');
    }
    json.append("],\"email_hash\":[],\"phone\":[],\"phone_hash\":[]}}");
    try {
      return MapV3Json.answer(
          new ByteArrayInputStream(json.toString().getBytes(StandardCharsets.UTF_8)),
          IdentityInput.EMAIL,
          sent.size());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void mapAllV3(MappingStore store, int generation, Set<String> optedOut) {
    for (PendingBatch pending = store.pending(-1, 7);
        !pending.isEmpty();
        pending = store.pending(pending.lastEntry(), 7)) {
      store.apply(pending, v3Answer(pending.values(), generation, optedOut), T0, T0);
    }
  }

  @Test
  void v3Mappings_holdThePreviousIdAndRefreshTime_andSurviveReopening() {
    Path file = dir.resolve("v3.cache");
    List<Identifier> ids = emails(0, 20);
    StoreFixture.State before;
    try (MappingStore store = MappingStore.open(file)) {
      store.add(ids, List.of(), T0, null, null);
      mapAllV3(store, 2, Set.of("user3@example.com"));
      CachedMapping even = store.get(ids.get(4)).orElseThrow();
      assertThat(even.advertisingId()).isEqualTo(advertisingId("user4@example.com", 2));
      assertThat(even.previousAdvertisingId()).isEqualTo(advertisingId("user4@example.com", 1));
      assertThat(even.bucketId()).isNull();
      assertThat(even.refreshFrom()).isEqualTo(Instant.ofEpochSecond(refreshSeconds(4)));
      assertThat(store.get(ids.get(5)).orElseThrow().previousAdvertisingId()).isNull();
      assertThat(store.get(ids.get(3))).isEmpty();
      before = state(store);
    }
    try (MappingStore store = MappingStore.open(file)) {
      assertThat(state(store)).isEqualTo(before);
    }
  }

  @Test
  void markDue_marksExactlyTheEntriesWhoseRefreshTimeHasPassed_andV1Entries() {
    try (MappingStore store = MappingStore.open(dir.resolve("due.cache"))) {
      store.add(emails(0, 10), List.of(), T0, null, null);
      mapAllV3(store, 1, Set.of());
      store.add(emails(10, 12), List.of(), T0, null, null);
      StoreFixture.mapAll(store, 5, 1, T0, Set.of()); // two v1 entries: no refresh time

      // Entry i is due i days after T0: at T0 + 3 days, entries 0 to 3 and both v1 entries.
      long marked = store.markDue(T0.plus(Duration.ofDays(3)).toEpochMilli());
      assertThat(marked).isEqualTo(6);
      assertThat(store.todoCount()).isEqualTo(6);
      assertThat(store.markDue(T0.plus(Duration.ofDays(3)).toEpochMilli())).isZero();
    }
  }

  @Test
  void removeOptedOut_asksAboutEveryCurrentId_inChunks_andRemovesThoseListed() {
    Path file = dir.resolve("sweep.cache");
    List<Identifier> ids = emails(0, 23);
    String leaving = advertisingId("user9@example.com", 1);
    List<Integer> chunkSizes = new ArrayList<>();
    try (MappingStore store = MappingStore.open(file)) {
      store.add(ids, List.of(), T0, null, null);
      mapAllV3(store, 1, Set.of());
      List<Rejection> removed =
          store.removeOptedOut(
              10,
              batch -> {
                chunkSizes.add(batch.size());
                long[] since = new long[batch.size()];
                for (int i = 0; i < since.length; i++) {
                  since[i] = batch.get(i).equals(leaving) ? T0.toEpochMilli() : -1;
                }
                return since;
              },
              T0.plusSeconds(60));
      assertThat(chunkSizes).containsExactly(10, 10, 3);
      assertThat(removed)
          .extracting(Rejection::identifier, Rejection::reason)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(ids.get(9), MapOutcome.Reason.OPTED_OUT));
      assertThat(store.get(ids.get(9))).isEmpty();
      assertThat(store.size()).isEqualTo(22);
    }
    try (MappingStore store = MappingStore.open(file)) {
      assertThat(store.size()).isEqualTo(22);
      List<Rejection> rejections = new ArrayList<>();
      store.forEachRejection(rejections::add);
      assertThat(rejections).extracting(Rejection::identifier).containsExactly(ids.get(9));
    }
  }

  @Test
  void anOptOutCheckThatFails_removesNothing_andTheCacheStaysUsable() {
    try (MappingStore store = MappingStore.open(dir.resolve("failing.cache"))) {
      store.add(emails(0, 5), List.of(), T0, null, null);
      mapAllV3(store, 1, Set.of());
      assertThatThrownBy(
              () ->
                  store.removeOptedOut(
                      10,
                      batch -> {
                        throw new IllegalStateException("server down");
                      },
                      T0))
          .hasMessage("server down");
      assertThat(store.size()).isEqualTo(5);
      assertThat(store.get(emails(0, 1).get(0))).isPresent();
    }
  }

  @Test
  void compaction_keepsV3Records() throws IOException {
    Path file = dir.resolve("compact-v3.cache");
    StoreFixture.State before;
    long grown;
    try (MappingStore store = MappingStore.open(file)) {
      store.add(emails(0, 3_000), List.of(), T0, null, null);
      for (int generation = 1; generation <= 5; generation++) {
        mapAllV3(store, generation, Set.of());
        store.markDue(T0.plus(Duration.ofDays(10_000)).toEpochMilli());
      }
      mapAllV3(store, 6, Set.of());
      before = state(store);
    }
    grown = Files.size(file);
    try (MappingStore store = MappingStore.open(file)) { // opening compacts
      assertThat(state(store)).isEqualTo(before);
    }
    assertThat(Files.size(file)).isLessThan(grown / 2);
  }

  @Test
  void theCsvOfV3Entries_hasV3sColumns() throws IOException {
    try (MappingStore store = MappingStore.open(dir.resolve("csv.cache"))) {
      store.add(emails(0, 2), List.of(), T0, null, null);
      mapAllV3(store, 2, Set.of());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      store.writeCsv(() -> false, out, true);
      assertThat(out.toString(StandardCharsets.UTF_8))
          .isEqualTo(
              "identifier,advertising_id,previous_advertising_id,refresh_from\n"
                  + "user0@example.com,"
                  + advertisingId("user0@example.com", 2)
                  + ","
                  + advertisingId("user0@example.com", 1)
                  + ","
                  + refreshSeconds(0)
                  + "\n"
                  + "user1@example.com,"
                  + advertisingId("user1@example.com", 2)
                  + ",,"
                  + refreshSeconds(1)
                  + "\n");
    }
  }
}

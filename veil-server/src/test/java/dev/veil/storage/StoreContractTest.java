package dev.veil.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.tuple;

import dev.veil.audit.AuditEvent;
import dev.veil.audit.AuditFilter;
import dev.veil.audit.AuditLog;
import dev.veil.client.ApiClient;
import dev.veil.client.ApiKeyDigest;
import dev.veil.client.ClientSecret;
import dev.veil.client.Role;
import dev.veil.common.ChangeCursor;
import dev.veil.common.ChangeFeed;
import dev.veil.common.Deadline;
import dev.veil.common.StoreUnavailableException;
import dev.veil.common.Versioned;
import dev.veil.core.token.EncryptionKey;
import dev.veil.deduction.CloseReason;
import dev.veil.deduction.Deduction;
import dev.veil.deduction.DeductionCreateException;
import dev.veil.deduction.DeductionEvent;
import dev.veil.deduction.DeductionFilter;
import dev.veil.deduction.DeductionStatus;
import dev.veil.deduction.DeductionStore;
import dev.veil.deduction.EventPosition;
import dev.veil.deduction.NewDeduction;
import dev.veil.key.KeyStore;
import dev.veil.optout.OptOut;
import dev.veil.salt.BucketSalt;
import dev.veil.site.ParticipantType;
import dev.veil.site.Sharing;
import dev.veil.site.Site;
import dev.veil.testing.Await;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviour every {@link Store} must have, whatever the engine. A subclass supplies a fresh,
 * empty database per test through {@link #openStore()}; every call opens the same database again.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class StoreContractTest {
  static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

  private final List<Store> opened = new ArrayList<>();

  /** Opens the database of the current test (migrating it on first use). */
  protected abstract Store openStore();

  /** A plain JDBC connection to the database of the current test. */
  protected abstract Connection connectDirectly() throws SQLException;

  /**
   * The most {@code saveRotations} of 10,000 rows may take. The embedded store needs a small
   * fraction of this; a networked database gets more room in its subclass.
   */
  protected Duration saveRotationsBudget() {
    return Duration.ofSeconds(1);
  }

  /**
   * Bookkeeping columns that only this engine has (PostgreSQL's {@code writer_xid}); every other
   * column is the same on every engine.
   */
  protected Set<String> engineOnlyColumns() {
    return Set.of();
  }

  /** Runs after every store opened by the test is closed. */
  protected void afterStoresClosed() {}

  protected final Store open() {
    Store store = openStore();
    opened.add(store);
    return store;
  }

  @AfterEach
  final void closeStores() {
    try {
      opened.forEach(Store::close);
    } finally {
      afterStoresClosed();
    }
  }

  // ---- audit --------------------------------------------------------------------------------

  private static final AuditLog.Actor ALICE = new AuditLog.Actor(7, "alice", "ticket 42");

  @Test
  void audit_recordsAChangeInItsOwnTransaction_andListsNewestFirstWithFilters() {
    Store store = open();
    AuditLog log = new AuditLog(store.audit(), java.time.Clock.fixed(T0, java.time.ZoneOffset.UTC));

    Versioned<ApiClient> created =
        log.recordCreation(
            ALICE,
            "CreateClient",
            "client",
            "{\"name\":\"c\"}",
            () ->
                store
                    .clients()
                    .insert("c", 0, Set.of(Role.MAPPER), true, T0, digest("c"), clientSecret("c")));
    log.record(ALICE, "RotateSalts", "salts", "{}", () -> 3);
    log.record(new AuditLog.Actor(8, "bob", ""), "RotateKeys", "keysets", "{}", () -> List.of());

    List<AuditEvent> all = store.audit().list(AuditFilter.ALL, 10);
    assertThat(all)
        .extracting(AuditEvent::action)
        .containsExactly("RotateKeys", "RotateSalts", "CreateClient");
    AuditEvent first = all.get(2);
    assertThat(first.target()).isEqualTo("client " + created.value().id());
    assertThat(first.at()).isEqualTo(T0);
    assertThat(first.actorId()).isEqualTo(7);
    assertThat(first.actorName()).isEqualTo("alice");
    assertThat(first.reason()).isEqualTo("ticket 42");
    assertThat(first.details()).isEqualTo("{\"name\":\"c\"}");
    assertThat(store.audit().list(new AuditFilter(7L, null, null, null, null, null), 10))
        .extracting(AuditEvent::action)
        .containsExactly("RotateSalts", "CreateClient");
    assertThat(store.audit().list(new AuditFilter(null, "RotateKeys", null, null, null, null), 10))
        .hasSize(1);
    assertThat(store.audit().list(new AuditFilter(null, null, "salts", null, null, null), 10))
        .hasSize(1);
    assertThat(store.audit().list(AuditFilter.ALL.before(all.get(0).id()), 1))
        .extracting(AuditEvent::action)
        .containsExactly("RotateSalts");
    assertThat(
            store.audit().list(new AuditFilter(null, null, null, T0.plusMillis(1), null, null), 10))
        .isEmpty();
    assertThat(
            store.audit().list(new AuditFilter(null, null, null, T0, T0.plusMillis(1), null), 10))
        .hasSize(3);
  }

  @Test
  void audit_aRecordThatCannotBeWritten_rollsItsChangeBack() {
    Store store = open();
    AuditLog log = new AuditLog(store.audit(), java.time.Clock.fixed(T0, java.time.ZoneOffset.UTC));
    AuditLog.Actor nameless = new AuditLog.Actor(7, null, "");

    assertThatThrownBy(
            () ->
                log.recordCreation(
                    nameless,
                    "CreateClient",
                    "client",
                    "{}",
                    () ->
                        store
                            .clients()
                            .insert("gone", 0, Set.of(), true, T0, digest("g"), clientSecret("g"))))
        .isInstanceOf(RuntimeException.class);

    assertThat(all(store.clients())).isEmpty();
    assertThat(store.audit().list(AuditFilter.ALL, 10)).isEmpty();
  }

  @Test
  void audit_aChangeThatFails_leavesNoRecord() {
    Store store = open();
    AuditLog log = new AuditLog(store.audit(), java.time.Clock.fixed(T0, java.time.ZoneOffset.UTC));

    assertThatThrownBy(
            () ->
                log.record(
                    ALICE,
                    "DeleteWebhook",
                    "webhook 5",
                    "{}",
                    () -> {
                      store.webhooks().disable(5, T0);
                      throw new IllegalStateException("refused after the update");
                    }))
        .hasMessage("refused after the update");
    assertThat(store.audit().list(AuditFilter.ALL, 10)).isEmpty();
  }

  @Test
  void audit_rowsCannotBeChangedOrDeleted_evenBySqlFromOutsideVeil() throws SQLException {
    Store store = open();
    store.audit().append(new AuditEvent(0, T0, 1, "admin", "RotateSalts", "salts", "{}", ""));
    try (Connection c = connectDirectly();
        Statement s = c.createStatement()) {
      assertThatThrownBy(() -> s.execute("UPDATE audit_event SET reason = 'rewritten'"))
          .hasMessageContaining("append-only");
      assertThatThrownBy(() -> s.execute("DELETE FROM audit_event"))
          .hasMessageContaining("append-only");
    }
    assertThat(store.audit().list(AuditFilter.ALL, 10))
        .singleElement()
        .satisfies(e -> assertThat(e.reason()).isEmpty());
  }

  // ---- keys ---------------------------------------------------------------------------------

  /** A key of a fresh predecessor slot (tests that are not about successors). */
  private Versioned<EncryptionKey> insertKey(
      Store store, int siteId, Instant created, Instant activates, Instant expires, byte[] secret) {
    KeyStore.Inserted inserted =
        store.keys().insert(siteId, ++predecessors, created, activates, expires, secret);
    assertThat(inserted.created()).isTrue();
    return inserted.key();
  }

  private int predecessors = 1_000;

  @Test
  void keys_insert_assignsDistinctPositiveIdsAndStoresEveryField() {
    Store store = open();
    byte[] secret = secret(1);
    Versioned<EncryptionKey> a =
        insertKey(
            store,
            EncryptionKey.MASTER_SITE_ID,
            T0,
            T0.plusSeconds(60),
            T0.plusSeconds(86_400),
            secret);
    Versioned<EncryptionKey> b = insertKey(store, 17, T0, T0, T0.plusSeconds(10), secret(2));

    assertThat(a.value().id()).isPositive();
    assertThat(b.value().id()).isPositive().isNotEqualTo(a.value().id());
    assertThat(b.seq()).isGreaterThan(a.seq());
    List<Versioned<EncryptionKey>> all = all(store.keys());
    assertThat(all)
        .containsExactly(a, b); // EncryptionKey.equals compares every field and the secret
    EncryptionKey stored = all.get(0).value();
    assertThat(stored.siteId()).isEqualTo(EncryptionKey.MASTER_SITE_ID);
    assertThat(stored.activates()).isEqualTo(T0.plusSeconds(60));
    assertThat(stored.expires()).isEqualTo(T0.plusSeconds(86_400));
    assertThat(stored.secret()).isEqualTo(secret);
  }

  @Test
  void keys_insert_truncatesTimesToMillis() {
    Store store = open();
    Instant precise = T0.plusNanos(1_234_567);
    EncryptionKey key =
        insertKey(store, 1, precise, precise, precise.plusSeconds(1), secret(1)).value();
    assertThat(key.created()).isEqualTo(T0.plusMillis(1));
    assertThat(all(store.keys()).get(0).value()).isEqualTo(key);
  }

  @Test
  void keys_insert_wrongSecretLength_isRejectedAndWritesNothing() {
    Store store = open();
    assertThatThrownBy(() -> store.keys().insert(1, 0, T0, T0, T0, new byte[16]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(all(store.keys())).isEmpty();
  }

  @Test
  void keys_insert_secondSuccessorOfOneKey_returnsTheFirstAndWritesNothing() {
    Store store = open();
    KeyStore.Inserted first = store.keys().insert(5, 0, T0, T0, T0.plusSeconds(9), secret(1));
    KeyStore.Inserted again =
        store.keys().insert(5, 0, T0.plusSeconds(1), T0, T0.plusSeconds(9), secret(2));
    KeyStore.Inserted next =
        store.keys().insert(5, first.key().value().id(), T0, T0, T0.plusSeconds(9), secret(3));
    KeyStore.Inserted otherSite = store.keys().insert(6, 0, T0, T0, T0.plusSeconds(9), secret(4));

    assertThat(first.created()).isTrue();
    assertThat(again.created()).isFalse();
    assertThat(again.key()).isEqualTo(first.key());
    assertThat(next.created()).isTrue();
    assertThat(otherSite.created()).isTrue();
    assertThat(all(store.keys()))
        .extracting(Versioned::value)
        .containsExactly(first.key().value(), next.key().value(), otherSite.key().value());
  }

  @Test
  void keys_insert_concurrentSuccessorsOfOneKey_createExactlyOne() throws Exception {
    Store store = open();
    Store otherNode = open();
    List<KeyStore.Inserted> results =
        concurrently(
            8,
            i ->
                () ->
                    (i % 2 == 0 ? store : otherNode)
                        .keys()
                        .insert(3, 0, T0, T0, T0.plusSeconds(9), secret(i)));

    assertThat(results).filteredOn(KeyStore.Inserted::created).hasSize(1);
    assertThat(results).extracting(KeyStore.Inserted::key).containsOnly(results.get(0).key());
    assertThat(all(store.keys())).hasSize(1);
  }

  // ---- change feeds (one contract, checked on each table) ---------------------------------

  @Test
  void changeFeed_fromStart_deliversEveryRowInSeqOrder_thenEveryLaterWrite() {
    Store store = open();
    Read<EncryptionKey> empty = read(store.keys(), ChangeCursor.START);
    assertThat(empty.rows()).isEmpty();

    Versioned<EncryptionKey> k1 = insertKey(store, 1, T0, T0, T0.plusSeconds(1), secret(1));
    Read<EncryptionKey> first = read(store.keys(), empty.next());
    assertThat(first.rows()).containsExactly(k1);

    Versioned<EncryptionKey> k2 = insertKey(store, 2, T0, T0, T0.plusSeconds(1), secret(2));
    Versioned<EncryptionKey> k3 = insertKey(store, 3, T0, T0, T0.plusSeconds(1), secret(3));
    Read<EncryptionKey> second = read(store.keys(), first.next());
    // At least once: k1 may come again, but k2 and k3 must, in seq order.
    assertThat(second.rows()).contains(k2, k3).isSubsetOf(k1, k2, k3);
    assertThat(second.rows()).extracting(Versioned::seq).isSorted();
    assertThat(read(store.keys(), second.next()).rows()).isSubsetOf(k1, k2, k3);
    assertThat(read(store.keys(), ChangeCursor.START).rows()).containsExactly(k1, k2, k3);
  }

  @Test
  void sites_put_storesEveryField_andReplacesTheSiteWithANewSeq() {
    Store store = open();
    Site first =
        new Site(
            7,
            List.of("app.example", "example.com"),
            Set.of(ParticipantType.PUBLISHER, ParticipantType.DSP),
            Optional.empty(),
            T0);
    Versioned<Site> v1 = store.sites().put(first);
    Read<Site> before = read(store.sites(), ChangeCursor.START);
    assertThat(before.rows()).hasSize(1);
    assertThat(before.rows().get(0).value()).isEqualTo(first);

    Site shared =
        new Site(
            7,
            List.of(),
            Set.of(),
            Optional.of(new Sharing(Set.of(3, 11), Set.of(ParticipantType.ADVERTISER))),
            T0.plusMillis(5));
    Versioned<Site> v2 = store.sites().put(shared);

    assertThat(v2.seq()).isGreaterThan(v1.seq());
    Read<Site> after = read(store.sites(), before.next());
    assertThat(after.rows()).hasSize(1);
    assertThat(after.rows().get(0).value()).isEqualTo(shared);
    assertThat(read(store.sites(), ChangeCursor.START).rows())
        .extracting(Versioned::value)
        .containsExactly(shared);
  }

  @Test
  void sites_emptySharingPermission_isKeptApartFromTheDefault() {
    Store store = open();
    Site none = new Site(9, List.of(), Set.of(), Optional.of(new Sharing(Set.of(), Set.of())), T0);
    store.sites().put(none);

    assertThat(read(store.sites(), ChangeCursor.START).rows().get(0).value().sharing())
        .contains(new Sharing(Set.of(), Set.of()));
  }

  @Test
  void changeFeed_deliversTheLatestStateOfAnUpdatedRow() {
    Store store = open();
    Versioned<ApiClient> v1 =
        store
            .clients()
            .insert("c", 0, Set.of(Role.MAPPER), true, T0, digest("c"), clientSecret("c"));
    Read<ApiClient> before = read(store.clients(), ChangeCursor.START);
    ApiClient disabled =
        new ApiClient(
            v1.value().id(),
            "c",
            v1.value().siteId(),
            Set.of(Role.MAPPER),
            false,
            T0,
            digest("c"),
            clientSecret("c"));
    Versioned<ApiClient> v2 = store.clients().update(disabled).orElseThrow();

    Read<ApiClient> after = read(store.clients(), before.next());
    assertThat(after.rows()).hasSize(1);
    assertSameClient(after.rows().get(0), v2);
    assertThat(after.rows().get(0).value().enabled()).isFalse();
  }

  @Test
  void changeFeed_failedRead_keepsTheCursorUsable() {
    Store store = open();
    store.optOuts().record(hash(1), T0);
    Read<OptOut> first = read(store.optOuts(), ChangeCursor.START);
    store.optOuts().record(hash(2), T0);
    assertThatThrownBy(
            () ->
                store
                    .optOuts()
                    .forEachChange(
                        first.next(),
                        v -> {
                          throw new IllegalStateException("sink failed");
                        }))
        .hasMessage("sink failed");
    assertThat(read(store.optOuts(), first.next()).rows())
        .extracting(v -> ByteBuffer.wrap(v.value().firstLevelHash()))
        .contains(ByteBuffer.wrap(hash(2)));
  }

  // ---- salts --------------------------------------------------------------------------------

  @Test
  void salts_saveRotations_insertsThenReplacesTheBucketWithANewSeq() {
    Store store = open();
    assertThat(
            store
                .salts()
                .saveRotations(List.of(new BucketSalt(0, 1, T0), new BucketSalt(5, 1, T0))))
        .isTrue();
    Read<BucketSalt> first = read(store.salts(), ChangeCursor.START);
    assertThat(first.rows())
        .extracting(Versioned::value)
        .containsExactly(new BucketSalt(0, 1, T0), new BucketSalt(5, 1, T0));
    long mark = first.rows().get(1).seq();

    BucketSalt rotated = new BucketSalt(5, 2, T0.plusSeconds(86_400));
    assertThat(store.salts().saveRotations(List.of(rotated))).isTrue();

    List<Versioned<BucketSalt>> later = read(store.salts(), first.next()).rows();
    assertThat(later)
        .extracting(Versioned::value)
        .contains(rotated)
        .doesNotContain(new BucketSalt(5, 1, T0));
    assertThat(later.get(later.size() - 1).seq()).isGreaterThan(mark);
    assertThat(all(store.salts()))
        .extracting(Versioned::value)
        .containsExactly(new BucketSalt(0, 1, T0), rotated); // one row per bucket, latest state
  }

  @Test
  void salts_refreshTime_isWrittenByEveryRotationPath_andReadBack() {
    Store store = open();
    BucketSalt first = new BucketSalt(3, 1, T0, T0.plusSeconds(77));
    BucketSalt scheduled = new BucketSalt(4, 1, T0, T0.plusSeconds(88));
    assertThat(store.salts().saveRotations(List.of(first))).isTrue();
    assertThat(store.salts().saveScheduledRotation(T0, List.of(scheduled))).isTrue();
    BucketSalt second = new BucketSalt(3, 2, T0.plusSeconds(10), T0.plusSeconds(99));
    assertThat(store.salts().saveRotations(List.of(second))).isTrue();

    assertThat(all(store.salts())).extracting(Versioned::value).containsExactly(scheduled, second);
    assertThat(new BucketSalt(1, 1, T0).refreshFrom())
        .isEqualTo(T0.plus(BucketSalt.REFRESH_PERIOD));
  }

  @Test
  void migrationV6_onAVersion5Store_keepsItsRotatedBuckets_withTheDefaultRefreshTime()
      throws SQLException {
    try (Connection c = connectDirectly();
        Statement s = c.createStatement()) {
      boolean sqlite = schemaUpTo(c, s, 5).equals("sqlite");
      if (sqlite) {
        s.execute("UPDATE change_counter SET value = value + 1");
      }
      s.execute(
          "INSERT INTO bucket_salt (bucket_index, generation, effective_ms, seq) VALUES (9, 2, "
              + T0.toEpochMilli()
              + ", "
              + (sqlite ? "(SELECT value FROM change_counter)" : "nextval('change_seq')")
              + ")");
    }

    Store store = open();

    assertThat(all(store.salts()))
        .extracting(Versioned::value)
        .containsExactly(new BucketSalt(9, 2, T0, T0.plus(BucketSalt.REFRESH_PERIOD)));
    BucketSalt third = new BucketSalt(9, 3, T0.plusSeconds(5), T0.plusSeconds(6));
    assertThat(store.salts().saveRotations(List.of(third))).isTrue();
    assertThat(all(store.salts())).extracting(Versioned::value).containsExactly(third);
  }

  @Test
  void salts_saveRotations_notTheNextGeneration_writesNothingAtAll() {
    Store store = open();
    store.salts().saveRotations(List.of(new BucketSalt(1, 1, T0)));

    assertThat(
            store
                .salts()
                .saveRotations(List.of(new BucketSalt(2, 1, T0), new BucketSalt(1, 1, T0))))
        .as("bucket 1 is at generation 1 already")
        .isFalse();
    assertThat(store.salts().saveRotations(List.of(new BucketSalt(3, 2, T0))))
        .as("3 has no row")
        .isFalse();
    assertThat(store.salts().saveRotations(List.of(new BucketSalt(1, 3, T0))))
        .as("skips 2")
        .isFalse();

    assertThat(all(store.salts()))
        .extracting(Versioned::value)
        .containsExactly(new BucketSalt(1, 1, T0));
    assertThat(
            store
                .salts()
                .saveRotations(List.of(new BucketSalt(1, 2, T0), new BucketSalt(1, 3, T0))))
        .as("consecutive generations of one bucket in one list")
        .isTrue();
    assertThat(all(store.salts()))
        .extracting(Versioned::value)
        .containsExactly(new BucketSalt(1, 3, T0));
  }

  @Test
  void salts_saveRotations_concurrentlyFromTheSameState_onlyOneApplies() throws Exception {
    Store store = open();
    Store otherNode = open();
    List<Boolean> applied =
        concurrently(
            8,
            i ->
                () ->
                    (i % 2 == 0 ? store : otherNode)
                        .salts()
                        .saveRotations(
                            List.of(
                                new BucketSalt(7, 1, T0.plusSeconds(i)),
                                new BucketSalt(8, 1, T0))));

    assertThat(applied).filteredOn(Boolean::booleanValue).hasSize(1);
    assertThat(all(store.salts())).extracting(v -> v.value().generation()).containsExactly(1, 1);
  }

  @Test
  void salts_scheduledRotation_runsEachPeriodOnce() {
    Store store = open();
    Instant day1 = T0;
    Instant day2 = T0.plusSeconds(86_400);
    assertThat(store.salts().lastScheduledRun()).isEmpty();

    assertThat(store.salts().saveScheduledRotation(day1, List.of(new BucketSalt(0, 1, T0))))
        .isTrue();
    assertThat(store.salts().saveScheduledRotation(day1, List.of(new BucketSalt(1, 1, T0))))
        .as("day 1 ran already")
        .isFalse();
    assertThat(store.salts().lastScheduledRun()).contains(day1);
    assertThat(store.salts().saveScheduledRotation(day2, List.of(new BucketSalt(0, 1, T0))))
        .as("bucket 0 is at generation 1: stale, so day 2 is not claimed")
        .isFalse();
    assertThat(store.salts().lastScheduledRun()).contains(day1);
    assertThat(store.salts().saveScheduledRotation(day2, List.of(new BucketSalt(0, 2, day2))))
        .isTrue();

    assertThat(store.salts().lastScheduledRun()).contains(day2);
    assertThat(all(store.salts()))
        .extracting(Versioned::value)
        .containsExactly(new BucketSalt(0, 2, day2));
  }

  @Test
  void salts_scheduledRotation_concurrentlyForOnePeriod_exactlyOneRuns() throws Exception {
    Store store = open();
    Store otherNode = open();
    List<Boolean> ran =
        concurrently(
            8,
            i ->
                () ->
                    (i % 2 == 0 ? store : otherNode)
                        .salts()
                        .saveScheduledRotation(T0, List.of(new BucketSalt(i, 1, T0))));

    assertThat(ran).filteredOn(Boolean::booleanValue).hasSize(1);
    assertThat(all(store.salts())).hasSize(1);
  }

  @Test
  void salts_saveRotations_tenThousandRows_inOneQuickTransaction() {
    Store store = open();
    store.salts().saveRotations(List.of(new BucketSalt(0, 1, T0))); // warm up connections
    List<BucketSalt> rows = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      rows.add(new BucketSalt(i, i == 0 ? 2 : 1, T0.plusSeconds(i))); // one update, 9,999 inserts
    }
    long start = System.nanoTime();
    boolean saved = store.salts().saveRotations(rows);
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    System.out.println(
        getClass().getSimpleName() + ": saveRotations(10,000) took " + took.toMillis() + " ms");
    assertThat(saved).isTrue();
    assertThat(took).isLessThan(saveRotationsBudget());
    List<Versioned<BucketSalt>> stored = all(store.salts());
    assertThat(stored).hasSize(10_000);
    assertThat(stored).extracting(Versioned::value).containsExactlyInAnyOrderElementsOf(rows);
  }

  @Test
  void salts_saveRotations_emptyList_writesNothing() {
    Store store = open();
    assertThat(store.salts().saveRotations(List.of())).isTrue();
    assertThat(all(store.salts())).isEmpty();
  }

  // ---- webhooks ------------------------------------------------------------------------------

  @Test
  void webhooks_startAtTheEndOfTheLog_readLaterOptOutsInOrder_andAdvanceOnlyForward() {
    Store store = open();
    store.optOuts().record(hash(1), T0);
    dev.veil.webhook.WebhookSecret secret = dev.veil.webhook.WebhookSecret.of(secret(1));
    dev.veil.webhook.Webhook hook =
        store
            .webhooks()
            .insert(7, dev.veil.webhook.WebhookUrl.parse("https://dsp.example/o"), secret, T0);
    for (int i = 2; i <= 5; i++) {
      store.optOuts().record(hash(i), T0.plusSeconds(i));
    }

    var registered = store.webhooks().active();
    var start = registered.get(0).delivered();
    var page = store.webhooks().optOutsAfter(start, 3);
    var rest = store.webhooks().optOutsAfter(page.get(2).position(), 3);

    assertThat(registered).hasSize(1);
    assertThat(registered.get(0).webhook()).isEqualTo(hook);
    assertThat(registered.get(0).secret()).isEqualTo(secret);
    assertThat(page)
        .extracting(o -> o.optedOutAt())
        .containsExactly(T0.plusSeconds(2), T0.plusSeconds(3), T0.plusSeconds(4));
    assertThat(page.get(0).firstLevelHash()).isEqualTo(hash(2));
    assertThat(rest).extracting(o -> o.optedOutAt()).containsExactly(T0.plusSeconds(5));
    assertThat(store.webhooks().advance(hook.id(), page.get(2).position(), T0)).isTrue();
    assertThat(store.webhooks().advance(hook.id(), page.get(0).position(), T0)).isFalse();
    assertThat(store.webhooks().active().get(0).delivered()).isEqualTo(page.get(2).position());
  }

  @Test
  void webhooks_disable_removesItFromBothLists_once() {
    Store store = open();
    var url = dev.veil.webhook.WebhookUrl.parse("http://127.0.0.1:9/x");
    var a = store.webhooks().insert(7, url, dev.veil.webhook.WebhookSecret.of(secret(1)), T0);
    var b = store.webhooks().insert(8, url, dev.veil.webhook.WebhookSecret.of(secret(2)), T0);

    assertThat(b.id()).isGreaterThan(a.id());
    assertThat(store.webhooks().disable(a.id(), T0)).isTrue();
    assertThat(store.webhooks().disable(a.id(), T0)).isFalse();
    assertThat(store.webhooks().list()).containsExactly(b);
    assertThat(store.webhooks().active()).extracting(r -> r.webhook()).containsExactly(b);
    assertThat(store.webhooks().advance(a.id(), new dev.veil.webhook.LogPosition(9, 9), T0))
        .isFalse();
  }

  // ---- opt-outs -----------------------------------------------------------------------------

  @Test
  void optOuts_record_isDurableAndFound() {
    Store store = open();
    byte[] hash = hash(1);
    Versioned<OptOut> recorded = store.optOuts().record(hash, T0);
    hash[0] ^= 1; // the store keeps its own copy

    Optional<OptOut> found = store.optOuts().find(hash(1));
    assertThat(found).isPresent();
    assertThat(found.get().firstLevelHash()).isEqualTo(hash(1));
    assertThat(found.get().optedOutAt()).isEqualTo(T0);
    assertThat(recorded.value().firstLevelHash()).isEqualTo(hash(1));
    assertThat(store.optOuts().find(hash(2))).isEmpty();
  }

  @Test
  void optOuts_findByPrefix_findsExactlyTheRecordsThatBeginWithIt() {
    Store store = open();
    byte[] low = new byte[32];
    low[0] = 0x12;
    low[1] = (byte) 0xff;
    byte[] high = low.clone();
    high[31] = (byte) 0xff;
    byte[] next = new byte[32];
    next[0] = 0x13;
    byte[] top = new byte[32];
    Arrays.fill(top, (byte) 0xff);
    for (byte[] h : List.of(low, high, next, top)) {
      store.optOuts().record(h, T0);
    }

    assertThat(store.optOuts().findByPrefix(new byte[] {0x12, (byte) 0xff}))
        .extracting(OptOut::firstLevelHash)
        .containsExactlyInAnyOrder(low, high);
    assertThat(store.optOuts().findByPrefix(new byte[] {0x12}))
        .extracting(OptOut::firstLevelHash)
        .containsExactlyInAnyOrder(low, high);
    assertThat(store.optOuts().findByPrefix(new byte[] {(byte) 0xff, (byte) 0xff}))
        .extracting(OptOut::firstLevelHash)
        .containsExactly(top);
    assertThat(store.optOuts().findByPrefix(new byte[] {0x11})).isEmpty();
    assertThat(store.optOuts().findByPrefix(new byte[] {0x13, 0})).hasSize(1);
  }

  // ---- a request's deadline ---------------------------------------------------------------

  @Test
  void write_afterItsRequestsDeadline_failsAtOnce_andWritesNothing() {
    Store store = open();
    Deadline passed = Deadline.after(Duration.ZERO);

    assertThatThrownBy(() -> passed.run(() -> store.optOuts().record(hash(1), T0)))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("ran out of time before it started");
    assertThat(store.optOuts().find(hash(1))).isEmpty();
  }

  /**
   * Another write holds the table (on PostgreSQL a lock the insert waits for on the server; on
   * SQLite the one writer connection): a request's write ends at its deadline, not at the store's
   * statement or lock timeouts, writes nothing, and the store takes writes again afterwards.
   */
  @Test
  void write_blockedBehindAnotherWrite_endsAtItsDeadline_andTheStoreRecovers() throws Exception {
    JdbcStore store = (JdbcStore) open();
    Database db = store.database();
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService holder = Executors.newSingleThreadExecutor();
    try {
      Future<?> held =
          holder.submit(
              () ->
                  db.write(
                      "hold the table",
                      c -> {
                        db.lockAgainstWriters(c, "opt_out");
                        holding.countDown();
                        awaitAtMost(
                            release,
                            Duration.ofSeconds(
                                10)); // ends the hold even if the write below never returns
                        return null;
                      }));
      assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();

      long start = System.nanoTime();
      Throwable thrown =
          catchThrowable(
              () ->
                  Deadline.after(Duration.ofMillis(1500))
                      .run(() -> store.optOuts().record(hash(1), T0)));
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      release.countDown();
      held.get(10, TimeUnit.SECONDS);

      assertThat(thrown)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("deadline");
      assertThat(took)
          .as(
              "ended by its 1.5 s deadline (the store's own timeouts are 5 s), with room for a"
                  + " loaded machine")
          .isLessThan(Duration.ofSeconds(4));
      assertThat(store.optOuts().find(hash(1))).isEmpty();
      Await.until(
          Duration.ofSeconds(10),
          "a write to succeed again",
          () -> {
            try {
              return store.optOuts().record(hash(2), T0) != null;
            } catch (StoreUnavailableException e) {
              return false; // PostgreSQL: fails at once until the next probe finds the database
              // answering
            }
          });
    } finally {
      release.countDown();
      holder.shutdownNow();
    }
  }

  private static void awaitAtMost(CountDownLatch latch, Duration timeout) {
    try {
      latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void optOuts_record_twice_keepsTheFirstTimeAndSeq() {
    Store store = open();
    Versioned<OptOut> first = store.optOuts().record(hash(1), T0);
    Versioned<OptOut> again = store.optOuts().record(hash(1), T0.plusSeconds(3_600));

    assertThat(again.seq()).isEqualTo(first.seq());
    assertThat(again.value().optedOutAt()).isEqualTo(T0);
    assertThat(store.optOuts().find(hash(1))).get().extracting(OptOut::optedOutAt).isEqualTo(T0);
    assertThat(all(store.optOuts())).hasSize(1);
  }

  @Test
  void optOuts_record_concurrentlyForOneHash_storesOneRecord() throws Exception {
    Store store = open();
    List<Versioned<OptOut>> results =
        concurrently(8, i -> () -> store.optOuts().record(hash(7), T0.plusSeconds(i)));

    assertThat(results).extracting(Versioned::seq).containsOnly(results.get(0).seq());
    Instant winner = results.get(0).value().optedOutAt();
    assertThat(results).extracting(v -> v.value().optedOutAt()).containsOnly(winner);
    assertThat(all(store.optOuts())).hasSize(1);
  }

  @Test
  void optOuts_changeFeed_streamsTwoHundredThousandInSeqOrder_thenOnlyWhatFollows() {
    Store store = open();
    int total = 200_000;
    long start = System.nanoTime();
    bulkRecord(store, 0, total / 2);
    long inserted = System.nanoTime();

    long[] count = {0};
    long[] previous = {Long.MIN_VALUE};
    long[] outOfOrder = {0};
    ChangeCursor half =
        store
            .optOuts()
            .forEachChange(
                ChangeCursor.START,
                v -> {
                  if (v.seq() <= previous[0] || v.value().firstLevelHash().length != 32) {
                    outOfOrder[0]++;
                  }
                  previous[0] = v.seq();
                  count[0]++;
                });
    long streamed = System.nanoTime();
    System.out.printf(
        "%s: 100,000 opt-outs inserted in %d ms, streamed in %d ms%n",
        getClass().getSimpleName(),
        (inserted - start) / 1_000_000,
        (streamed - inserted) / 1_000_000);
    assertThat(count[0]).isEqualTo(total / 2);
    assertThat(outOfOrder[0]).isZero();

    bulkRecord(store, total / 2, total);
    long[] delivered = {0};
    long[] later = {0};
    long lastOfFirstHalf = previous[0];
    store
        .optOuts()
        .forEachChange(
            half,
            v -> {
              delivered[0]++;
              if (v.seq() > lastOfFirstHalf) {
                later[0]++;
              }
            });
    // Every row of the second half; rows of the first half only again if another transaction in
    // the database was still running at the first read (at least once), never more than all.
    assertThat(later[0]).isEqualTo(total / 2);
    assertThat(delivered[0]).isLessThanOrEqualTo(total);
    assertThat(store.optOuts().find(hash(123_456)))
        .get()
        .extracting(OptOut::optedOutAt)
        .isEqualTo(T0.plusMillis(123_456));
  }

  /** Loads opt-outs {@code from..to-1} through the store's batched bulk path. */
  static void bulkRecord(Store store, int from, int to) {
    JdbcOptOutStore bulk = (JdbcOptOutStore) store.optOuts();
    int chunkSize = 20_000;
    for (int first = from; first < to; first += chunkSize) {
      List<OptOut> chunk = new ArrayList<>();
      for (int i = first; i < Math.min(to, first + chunkSize); i++) {
        chunk.add(new OptOut(hash(i), T0.plusMillis(i)));
      }
      assertThat(bulk.recordAll(chunk)).isEqualTo(chunk.size());
    }
  }

  @Test
  void optOuts_changeFeed_sinkFailure_propagatesAndTheStoreStaysUsable() {
    Store store = open();
    store.optOuts().record(hash(1), T0);
    store.optOuts().record(hash(2), T0);
    IllegalStateException boom = new IllegalStateException("sink failed");

    for (int i = 0; i < 10; i++) { // more often than there are connections: none may leak
      assertThatThrownBy(
              () ->
                  store
                      .optOuts()
                      .forEachChange(
                          ChangeCursor.START,
                          v -> {
                            throw boom;
                          }))
          .isSameAs(boom);
    }
    store.optOuts().record(hash(3), T0);
    assertThat(all(store.optOuts())).hasSize(3);
  }

  // ---- clients ------------------------------------------------------------------------------

  @Test
  void clients_insert_siteIdZero_takesTheNewClientsId() {
    Store store = open();
    ApiClient a =
        store
            .clients()
            .insert("a", 0, Set.of(Role.GENERATOR), true, T0, digest("a"), clientSecret("a"))
            .value();
    ApiClient b =
        store
            .clients()
            .insert("b", 0, Set.of(Role.MAPPER), true, T0, digest("b"), clientSecret("b"))
            .value();

    assertThat(a.siteId()).isEqualTo((int) a.id());
    assertThat(b.siteId()).isEqualTo((int) b.id()).isNotEqualTo(a.siteId());
    assertThat(all(store.clients()))
        .extracting(v -> v.value().siteId())
        .containsExactly(a.siteId(), b.siteId());
  }

  /** The repro of a shared site: a client took the site id that the next client's id would give. */
  @Test
  void clients_insert_siteIdZero_whenAnotherClientHasThatSiteId_takesTheNextFreeOne() {
    Store store = open();
    ApiClient first = insertClient(store, "first", 0);
    long n = first.id();
    ApiClient takesNext = insertClient(store, "takes the next id's site", Math.toIntExact(n + 2));
    ApiClient auto = insertClient(store, "auto", 0);
    ApiClient auto2 = insertClient(store, "auto 2", 0);
    ApiClient sameSite = insertClient(store, "second client of a site", auto.siteId());

    assertThat(takesNext.id()).isEqualTo(n + 1);
    assertThat(auto.id()).isEqualTo(n + 2);
    assertThat(auto.siteId()).isEqualTo(n + 3);
    assertThat(auto2.id()).isEqualTo(n + 3);
    assertThat(auto2.siteId()).isEqualTo(n + 4);
    assertThat(sameSite.siteId())
        .as("an explicit site id is kept, shared or not")
        .isEqualTo(auto.siteId());
    assertThat(all(store.clients()))
        .extracting(v -> v.value().siteId())
        .containsExactly(
            first.siteId(), takesNext.siteId(), auto.siteId(), auto2.siteId(), auto.siteId());
  }

  @Test
  void clients_insert_siteIdZero_skipsASiteIdThatHasAKeyset() {
    Store store = open();
    ApiClient first = insertClient(store, "first", 0);
    int orphanSite = Math.toIntExact(first.id() + 1); // keys whose client is gone
    insertKey(store, orphanSite, T0, T0, T0.plusSeconds(60), secret(1));

    ApiClient auto = insertClient(store, "auto", 0);

    assertThat(auto.id()).isEqualTo(orphanSite);
    assertThat(auto.siteId()).isEqualTo(orphanSite + 1);
  }

  /**
   * Nodes creating clients at once: each client that asked for a site of its own has one, even when
   * the site id its client id would give is taken and a concurrent insert looks for the next free
   * one at the same moment.
   */
  @Test
  void clients_insert_siteIdZero_concurrentlyOnTwoNodes_neverSharesASite() throws Exception {
    Store store = open();
    Store otherNode = open();
    List<Long> autoIds = new ArrayList<>();
    for (int round = 0; round < 5; round++) {
      long n = insertClient(store, "probe", 0).id();
      insertClient(store, "squatter", Math.toIntExact(n + 2)); // the site of the next id
      List<ApiClient> created =
          concurrently(8, i -> () -> insertClient(i % 2 == 0 ? store : otherNode, "auto " + i, 0));
      created.forEach(c -> autoIds.add(c.id()));
    }

    List<ApiClient> clients = all(store.clients()).stream().map(Versioned::value).toList();
    for (ApiClient auto : clients.stream().filter(c -> autoIds.contains(c.id())).toList()) {
      assertThat(clients)
          .as("clients with the site of client %d", auto.id())
          .filteredOn(c -> c.siteId() == auto.siteId())
          .extracting(ApiClient::id)
          .containsExactly(auto.id());
    }
  }

  private static ApiClient insertClient(Store store, String name, int siteId) {
    return store
        .clients()
        .insert(name, siteId, Set.of(Role.GENERATOR), true, T0, digest(name), clientSecret(name))
        .value();
  }

  @Test
  void clients_insert_storesEveryField() {
    Store store = open();
    ApiKeyDigest key = digest("k1");
    Versioned<ApiClient> inserted =
        store
            .clients()
            .insert(
                "Publisher One",
                1234,
                EnumSet.of(Role.GENERATOR, Role.ID_READER, Role.ADMIN),
                false,
                T0,
                key,
                clientSecret("k1"));
    Versioned<ApiClient> noRoles =
        store.clients().insert("empty", 99, Set.of(), true, T0, digest("k2"), clientSecret("k2"));

    List<Versioned<ApiClient>> all = all(store.clients());
    assertThat(all).hasSize(2);
    assertSameClient(all.get(0), inserted);
    assertSameClient(all.get(1), noRoles);
    ApiClient stored = all.get(0).value();
    assertThat(stored.name()).isEqualTo("Publisher One");
    assertThat(stored.siteId()).isEqualTo(1234);
    assertThat(stored.roles())
        .containsExactlyInAnyOrder(Role.GENERATOR, Role.ID_READER, Role.ADMIN);
    assertThat(stored.enabled()).isFalse();
    assertThat(stored.created()).isEqualTo(T0);
    assertThat(stored.key().keyId()).isEqualTo(key.keyId());
    assertThat(stored.key().salt()).isEqualTo(key.salt());
    assertThat(stored.key().hash()).isEqualTo(key.hash());
    assertThat(all.get(1).value().roles()).isEmpty();
  }

  @Test
  void clients_update_replacesTheStateAndGivesANewSeq() {
    Store store = open();
    Versioned<ApiClient> v1 =
        store
            .clients()
            .insert("c", 0, Set.of(Role.MAPPER), true, T0, digest("old"), clientSecret("old"));
    ApiClient changed =
        new ApiClient(
            v1.value().id(),
            "c renamed",
            77,
            Set.of(Role.OPTOUT),
            false,
            T0.plusSeconds(5),
            digest("new"),
            clientSecret("new"));

    Optional<Versioned<ApiClient>> v2 = store.clients().update(changed);

    assertThat(v2).isPresent();
    assertThat(v2.get().seq()).isGreaterThan(v1.seq());
    List<Versioned<ApiClient>> all = all(store.clients());
    assertThat(all).hasSize(1); // latest state only
    assertSameClient(all.get(0), v2.get());
    assertThat(all.get(0).value().siteId()).isEqualTo(77);
    assertThat(all.get(0).value().key().keyId()).isEqualTo("new");
  }

  @Test
  void clients_update_unknownId_isEmptyAndWritesNothing() {
    Store store = open();
    ApiClient ghost =
        new ApiClient(9_999, "ghost", 1, Set.of(), true, T0, digest("g"), clientSecret("g"));
    assertThat(store.clients().update(ghost)).isEmpty();
    assertThat(all(store.clients())).isEmpty();
  }

  // ---- deductions ---------------------------------------------------------------------------

  static NewDeduction draft(String title) {
    return new NewDeduction(title, "", 0, Optional.empty(), Optional.empty());
  }

  static NewDeduction draft(String title, String requestId) {
    return new NewDeduction(title, "", 0, Optional.of(requestId), Optional.empty());
  }

  @Test
  void deductions_insert_assignsIdsFromOne_startsNormal_andStoresEveryField() {
    Store store = open();
    Instant precise = T0.plusNanos(1_234_567);
    NewDeduction full =
        new NewDeduction(
            "Gym \uD83D\uDE00 Über",
            "line one\n\tline two",
            4_294_967_295L,
            Optional.of("req-1"),
            Optional.empty());

    DeductionStore.Inserted a = store.deductions().insert(full, precise);
    DeductionStore.Inserted b = store.deductions().insert(draft("second"), T0);

    assertThat(a.created()).isTrue();
    assertThat(a.deduction())
        .isEqualTo(
            new Deduction(
                1,
                "Gym \uD83D\uDE00 Über",
                "line one\n\tline two",
                4_294_967_295L,
                DeductionStatus.NORMAL,
                T0.plusMillis(1),
                T0.plusMillis(1),
                1,
                Optional.empty(),
                CloseReason.NONE));
    assertThat(b.deduction().id()).isEqualTo(2);
    assertThat(store.deductions().list(DeductionFilter.status(DeductionStatus.NORMAL), 0, 0))
        .containsExactly(a.deduction(), b.deduction());
  }

  @Test
  void deductions_get_findsARecordWhateverItsStatus() {
    Store store = open();
    Deduction d = store.deductions().insert(draft("one"), T0).deduction();
    store.deductions().setStatus(d.id(), DeductionStatus.EXPIRED, T0.plusSeconds(1));

    assertThat(store.deductions().get(d.id()))
        .hasValueSatisfying(
            got -> {
              assertThat(got.title()).isEqualTo("one");
              assertThat(got.status()).isEqualTo(DeductionStatus.EXPIRED);
            });
    assertThat(store.deductions().get(d.id() + 1)).isEmpty();
  }

  @Test
  void deductions_insert_withAUsedRequestId_returnsTheStoredRecord_andCreatesNothing() {
    Store store = open();
    Deduction first = store.deductions().insert(draft("first", "r1"), T0).deduction();
    store.deductions().setStatus(first.id(), DeductionStatus.EXPIRED, T0.plusSeconds(1));

    DeductionStore.Inserted again =
        store
            .deductions()
            .insert(
                new NewDeduction("other", "x", 9, Optional.of("r1"), Optional.empty()),
                T0.plusSeconds(2));
    DeductionStore.Inserted noKey1 = store.deductions().insert(draft("no key"), T0);
    DeductionStore.Inserted noKey2 = store.deductions().insert(draft("no key"), T0);

    assertThat(again.created()).isFalse();
    assertThat(again.deduction())
        .isEqualTo(first.withStatus(DeductionStatus.EXPIRED, T0.plusSeconds(1)));
    assertThat(noKey1.created()).isTrue();
    assertThat(noKey2.created()).isTrue();
    assertThat(noKey2.deduction().id()).isNotEqualTo(noKey1.deduction().id());
    assertThat(store.deductions().list(DeductionFilter.status(DeductionStatus.NORMAL), 0, 0))
        .hasSize(2);
    assertThat(store.deductions().list(DeductionFilter.status(DeductionStatus.EXPIRED), 0, 0))
        .hasSize(1);
  }

  @Test
  void deductions_insert_concurrentlyWithOneRequestId_createsExactlyOneRecord() throws Exception {
    Store store = open();
    Store otherNode = open();
    List<DeductionStore.Inserted> results =
        concurrently(
            8,
            i ->
                () ->
                    (i % 2 == 0 ? store : otherNode)
                        .deductions()
                        .insert(draft("same", "shared"), T0));

    assertThat(results).filteredOn(DeductionStore.Inserted::created).hasSize(1);
    assertThat(results)
        .extracting(r -> r.deduction().id())
        .containsOnly(results.get(0).deduction().id());
    assertThat(store.deductions().list(DeductionFilter.status(DeductionStatus.NORMAL), 0, 0))
        .hasSize(1);
  }

  @Test
  void deductions_insert_pastTheLastUint32Id_failsAndWritesNothing() throws SQLException {
    Store store = open();
    store.deductions().insert(draft("first"), T0);
    restartDeductionIdsAt(Deduction.MAX_ID);

    Deduction last = store.deductions().insert(draft("last"), T0).deduction();

    assertThat(last.id()).isEqualTo(Deduction.MAX_ID);
    for (int attempt = 0; attempt < 2; attempt++) {
      assertThatThrownBy(() -> store.deductions().insert(draft("too many"), T0))
          .isInstanceOf(DeductionCreateException.class);
    }
    assertThat(store.deductions().list(DeductionFilter.status(DeductionStatus.NORMAL), 0, 0))
        .extracting(Deduction::title)
        .containsExactly("first", "last");
  }

  /** Makes {@code next} the id of the next deduction insert, the way each engine allows it. */
  private void restartDeductionIdsAt(long next) throws SQLException {
    try (Connection c = connectDirectly();
        Statement s = c.createStatement()) {
      if (c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT).contains("sqlite")) {
        s.executeUpdate(
            "UPDATE sqlite_sequence SET seq = " + (next - 1) + " WHERE name = 'deduction'");
      } else {
        s.execute("ALTER TABLE deduction ALTER COLUMN id RESTART WITH " + next);
      }
    }
  }

  @Test
  void deductions_setStatus_stampsUpdatedOnlyWhenTheStatusChanges() {
    Store store = open();
    Deduction d = store.deductions().insert(draft("d"), T0).deduction();

    Optional<Deduction> sameStatus =
        store.deductions().setStatus(d.id(), DeductionStatus.NORMAL, T0.plusSeconds(1));
    Optional<Deduction> closed =
        store.deductions().setStatus(d.id(), DeductionStatus.EXPIRED, T0.plusSeconds(2));
    Optional<Deduction> closedAgain =
        store.deductions().setStatus(d.id(), DeductionStatus.EXPIRED, T0.plusSeconds(3));

    assertThat(sameStatus).contains(d);
    Deduction expired = d.withStatus(DeductionStatus.EXPIRED, T0.plusSeconds(2));
    assertThat(closed).contains(expired);
    assertThat(closedAgain).contains(expired);
    assertThat(store.deductions().list(DeductionFilter.status(DeductionStatus.EXPIRED), 0, 0))
        .containsExactly(expired);
    assertThat(store.deductions().list(DeductionFilter.status(DeductionStatus.NORMAL), 0, 0))
        .isEmpty();
  }

  @Test
  void deductions_setStatus_unknownId_isEmptyAndWritesNothing() {
    Store store = open();
    store.deductions().insert(draft("d"), T0);

    assertThat(store.deductions().setStatus(2, DeductionStatus.EXPIRED, T0)).isEmpty();
    assertThat(store.deductions().setStatus(0, DeductionStatus.EXPIRED, T0)).isEmpty();
    assertThat(store.deductions().list(DeductionFilter.status(DeductionStatus.EXPIRED), 0, 0))
        .isEmpty();
  }

  @Test
  void deductions_setStatus_concurrentOpposingChanges_eachReturnsTheStateItLeft() throws Exception {
    Store store = open();
    Store otherNode = open();
    Deduction d = store.deductions().insert(draft("contended"), T0).deduction();

    List<Deduction> results =
        concurrently(
            16,
            i ->
                () ->
                    (i % 2 == 0 ? store : otherNode)
                        .deductions()
                        .setStatus(
                            d.id(),
                            i % 4 < 2 ? DeductionStatus.EXPIRED : DeductionStatus.NORMAL,
                            T0.plusSeconds(i))
                        .orElseThrow());

    for (int i = 0; i < results.size(); i++) {
      assertThat(results.get(i).status())
          .as("call %d", i)
          .isEqualTo(i % 4 < 2 ? DeductionStatus.EXPIRED : DeductionStatus.NORMAL);
    }
    List<Deduction> all =
        new ArrayList<>(
            store.deductions().list(DeductionFilter.status(DeductionStatus.NORMAL), 0, 0));
    all.addAll(store.deductions().list(DeductionFilter.status(DeductionStatus.EXPIRED), 0, 0));
    assertThat(all).singleElement().extracting(Deduction::id).isEqualTo(d.id());
  }

  @Test
  void deductions_list_filtersByStatus_ordersById_andContinuesAfterAnId() {
    Store store = open();
    for (int i = 1; i <= 9; i++) {
      store.deductions().insert(draft("d" + i), T0);
    }
    for (long id : new long[] {8, 2, 5}) {
      store.deductions().setStatus(id, DeductionStatus.EXPIRED, T0);
    }

    assertThat(ids(store.deductions().list(DeductionFilter.status(DeductionStatus.NORMAL), 0, 0)))
        .containsExactly(1L, 3L, 4L, 6L, 7L, 9L);
    assertThat(ids(store.deductions().list(DeductionFilter.status(DeductionStatus.EXPIRED), 0, 0)))
        .containsExactly(2L, 5L, 8L);
    assertThat(ids(store.deductions().list(DeductionFilter.status(DeductionStatus.NORMAL), 3, 2)))
        .containsExactly(4L, 6L);
    assertThat(ids(store.deductions().list(DeductionFilter.status(DeductionStatus.NORMAL), 6, 0)))
        .containsExactly(7L, 9L);
    assertThat(ids(store.deductions().list(DeductionFilter.status(DeductionStatus.EXPIRED), 8, 5)))
        .isEmpty();
  }

  @Test
  void deductions_list_filtersByStatusesPayMethodsAndCreationTime_together() {
    Store store = open();
    for (int i = 1; i <= 8; i++) {
      store
          .deductions()
          .insert(
              new NewDeduction("d" + i, "", i % 3, Optional.empty(), Optional.empty()),
              T0.plusSeconds(i));
    }
    store.deductions().setStatus(4, DeductionStatus.EXPIRED, T0.plusSeconds(10));
    DeductionFilter payMethods12 =
        new DeductionFilter(Set.of(), Set.of(1L, 2L), Optional.empty(), Optional.empty());
    DeductionFilter window =
        new DeductionFilter(
            Set.of(), Set.of(), Optional.of(T0.plusSeconds(3)), Optional.of(T0.plusSeconds(6)));
    DeductionFilter expiredPayMethod1 =
        new DeductionFilter(
            Set.of(DeductionStatus.EXPIRED), Set.of(1L), Optional.empty(), Optional.empty());
    DeductionFilter both =
        new DeductionFilter(
            Set.of(DeductionStatus.NORMAL, DeductionStatus.EXPIRED),
            Set.of(1L, 2L),
            Optional.of(T0.plusSeconds(2)),
            Optional.of(T0.plusSeconds(8)));

    assertThat(ids(store.deductions().list(payMethods12, 0, 0)))
        .containsExactly(1L, 2L, 4L, 5L, 7L, 8L);
    assertThat(ids(store.deductions().list(window, 0, 0))).containsExactly(3L, 4L, 5L);
    assertThat(ids(store.deductions().list(expiredPayMethod1, 0, 0))).containsExactly(4L);
    assertThat(ids(store.deductions().list(both, 0, 0))).containsExactly(2L, 4L, 5L, 7L);
    assertThat(ids(store.deductions().list(both, 4, 2))).containsExactly(5L, 7L);
  }

  @Test
  void deductions_insert_keepsTheValidityWindow_andDueToExpireFindsItOnceItEnded() {
    Store store = open();
    Deduction lasting =
        store
            .deductions()
            .insert(
                new NewDeduction(
                    "w", "", 0, Optional.empty(), Optional.of(T0.plusSeconds(60).plusNanos(5))),
                T0)
            .deduction();
    store.deductions().insert(draft("no window"), T0);
    Deduction closed =
        store
            .deductions()
            .insert(
                new NewDeduction("c", "", 0, Optional.empty(), Optional.of(T0.plusSeconds(30))), T0)
            .deduction();
    store.deductions().setStatus(closed.id(), DeductionStatus.EXPIRED, T0);

    assertThat(lasting.validUntil()).contains(T0.plusSeconds(60));
    assertThat(store.deductions().get(lasting.id()).orElseThrow()).isEqualTo(lasting);
    assertThat(store.deductions().dueToExpire(T0.plusSeconds(59), 10)).isEmpty();
    assertThat(store.deductions().dueToExpire(T0.plusSeconds(60), 10))
        .containsExactly(lasting.id());
  }

  @Test
  void deductions_change_storesTheNextVersion_orNothingWhenTheStateIsTheSame() {
    Store store = open();
    Deduction d = store.deductions().insert(draft("v"), T0).deduction();
    assertThat(d.version()).isEqualTo(1);
    assertThat(d.closeReason()).isEqualTo(CloseReason.NONE);

    DeductionStore.Changed same =
        store.deductions().change(d.id(), x -> x, T0.plusSeconds(1)).orElseThrow();
    DeductionStore.Changed closed =
        store
            .deductions()
            .change(d.id(), x -> x.withStatus(DeductionStatus.EXPIRED, T0), T0.plusSeconds(2))
            .orElseThrow();

    assertThat(same.changed()).isFalse();
    assertThat(same.deduction()).isEqualTo(d);
    assertThat(closed.changed()).isTrue();
    assertThat(closed.deduction().version()).isEqualTo(2);
    assertThat(closed.deduction().updated()).isEqualTo(T0.plusSeconds(2));
    assertThat(closed.deduction().closeReason()).isEqualTo(CloseReason.MANUAL);
    assertThat(store.deductions().get(d.id())).contains(closed.deduction());
    assertThat(store.deductions().history(d.id()))
        .extracting(DeductionEvent::kind)
        .containsExactly(DeductionEvent.Kind.CREATED, DeductionEvent.Kind.CLOSED);
  }

  @Test
  void deductions_change_whoseDecisionThrows_writesNothing() {
    Store store = open();
    Deduction d = store.deductions().insert(draft("v"), T0).deduction();

    assertThatThrownBy(
            () ->
                store
                    .deductions()
                    .change(
                        d.id(),
                        x -> {
                          throw new IllegalStateException("refused");
                        },
                        T0.plusSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("refused");
    assertThat(store.deductions().get(d.id())).contains(d);
    assertThat(store.deductions().history(d.id())).hasSize(1);
    assertThat(store.deductions().change(99, x -> x, T0)).isEmpty();
  }

  @Test
  void deductions_log_recordsEveryChangeInOrder_withTheRecordedActor_andResumesAfterAnyPosition() {
    Store store = open();
    AuditLog audit = new AuditLog(store.audit(), java.time.Clock.fixed(T0, ZoneOffset.UTC));
    AuditLog.Actor ops = new AuditLog.Actor(7, "ops", "");
    Deduction a =
        audit
            .recordCreation(
                ops,
                "CreateDeduction",
                "deduction",
                "{}",
                () -> store.deductions().insert(draft("a"), T0))
            .deduction();
    Deduction b = store.deductions().insert(draft("b"), T0.plusSeconds(1)).deduction();
    audit.record(
        ops,
        "CloseDeduction",
        "deduction " + a.id(),
        "{}",
        () -> store.deductions().setStatus(a.id(), DeductionStatus.EXPIRED, T0.plusSeconds(2)));
    store.deductions().setStatus(a.id(), DeductionStatus.NORMAL, T0.plusSeconds(3));

    List<DeductionEvent> all = store.deductions().eventsAfter(EventPosition.START, 100);

    assertThat(all)
        .extracting(e -> e.deduction().id(), DeductionEvent::kind, DeductionEvent::actor)
        .containsExactly(
            tuple(a.id(), DeductionEvent.Kind.CREATED, "ops"),
            tuple(b.id(), DeductionEvent.Kind.CREATED, ""),
            tuple(a.id(), DeductionEvent.Kind.CLOSED, "ops"),
            tuple(a.id(), DeductionEvent.Kind.OPENED, ""));
    assertThat(all).extracting(DeductionEvent::position).isSorted().doesNotHaveDuplicates();
    assertThat(all.get(3).deduction()).isEqualTo(store.deductions().get(a.id()).orElseThrow());
    assertThat(all.get(3).at()).isEqualTo(T0.plusSeconds(3));
    assertThat(store.deductions().eventsAfter(all.get(1).position(), 100))
        .isEqualTo(all.subList(2, 4));
    assertThat(store.deductions().eventsAfter(EventPosition.START, 3)).isEqualTo(all.subList(0, 3));
    assertThat(store.deductions().eventsAfter(all.get(3).position(), 100)).isEmpty();
    assertThat(store.deductions().history(a.id()))
        .extracting(DeductionEvent::kind)
        .containsExactly(
            DeductionEvent.Kind.CREATED, DeductionEvent.Kind.CLOSED, DeductionEvent.Kind.OPENED);
    assertThat(store.deductions().history(42)).isEmpty();
  }

  @Test
  void deductions_log_refusesUpdatesAndDeletes() throws Exception {
    Store store = open();
    store.deductions().insert(draft("a"), T0);
    try (Connection c = connectDirectly();
        Statement s = c.createStatement()) {
      assertThatThrownBy(() -> s.executeUpdate("UPDATE deduction_event SET actor = 'x'"))
          .hasMessageContaining("append-only");
      assertThatThrownBy(() -> s.executeUpdate("DELETE FROM deduction_event"))
          .hasMessageContaining("append-only");
    }
    assertThat(store.deductions().eventsAfter(EventPosition.START, 10)).hasSize(1);
  }

  static List<Long> ids(List<Deduction> deductions) {
    return deductions.stream().map(Deduction::id).toList();
  }

  // ---- meta ---------------------------------------------------------------------------------

  @Test
  void meta_putIfAbsent_keepsTheFirstValue() {
    Store store = open();
    assertThat(store.meta().get("salt")).isEmpty();
    assertThat(store.meta().putIfAbsent("salt", bytes("one"))).isEqualTo(bytes("one"));
    assertThat(store.meta().putIfAbsent("salt", bytes("two"))).isEqualTo(bytes("one"));
    assertThat(store.meta().get("salt")).get().isEqualTo(bytes("one"));
  }

  @Test
  void meta_putIfAbsent_concurrently_everyCallerGetsTheSameWinner() throws Exception {
    Store store = open();
    List<byte[]> results =
        concurrently(8, i -> () -> store.meta().putIfAbsent("seed", bytes("v" + i)));
    byte[] stored = store.meta().get("seed").orElseThrow();
    assertThat(results).allSatisfy(r -> assertThat(r).isEqualTo(stored));
  }

  @Test
  void meta_compareAndSet_nullExpectedMeansAbsent() {
    Store store = open();
    assertThat(store.meta().compareAndSet("day", null, bytes("d1"))).isTrue();
    assertThat(store.meta().compareAndSet("day", null, bytes("d2"))).isFalse();
    assertThat(store.meta().get("day")).get().isEqualTo(bytes("d1"));
  }

  @Test
  void meta_compareAndSet_replacesOnlyTheExpectedValue() {
    Store store = open();
    store.meta().putIfAbsent("day", bytes("d1"));
    assertThat(store.meta().compareAndSet("day", bytes("other"), bytes("d2"))).isFalse();
    assertThat(store.meta().get("day")).get().isEqualTo(bytes("d1"));
    assertThat(store.meta().compareAndSet("day", bytes("d1"), bytes("d2"))).isTrue();
    assertThat(store.meta().get("day")).get().isEqualTo(bytes("d2"));
    assertThat(store.meta().compareAndSet("missing", bytes("d1"), bytes("d2"))).isFalse();
    assertThat(store.meta().get("missing")).isEmpty();
  }

  @Test
  void meta_compareAndSet_concurrently_exactlyOneWins() throws Exception {
    Store store = open();
    store.meta().putIfAbsent("day", bytes("d0"));
    List<Boolean> won =
        concurrently(8, i -> () -> store.meta().compareAndSet("day", bytes("d0"), bytes("n" + i)));
    assertThat(won).filteredOn(Boolean::booleanValue).hasSize(1);
    int winner = won.indexOf(true);
    assertThat(store.meta().get("day")).get().isEqualTo(bytes("n" + winner));
  }

  // ---- across tables ------------------------------------------------------------------------

  @Test
  void seq_increasesWithEveryWriteAcrossAllTables() {
    Store store = open();
    long s1 = insertKey(store, 1, T0, T0, T0.plusSeconds(1), secret(1)).seq();
    Versioned<ApiClient> client =
        store.clients().insert("c", 0, Set.of(), true, T0, digest("c"), clientSecret("c"));
    long s3 = store.optOuts().record(hash(1), T0).seq();
    store.salts().saveRotations(List.of(new BucketSalt(3, 1, T0)));
    long s4 = all(store.salts()).get(0).seq();
    long s5 = store.clients().update(client.value()).orElseThrow().seq();
    long s6 = insertKey(store, 1, T0, T0, T0.plusSeconds(1), secret(2)).seq();

    assertThat(List.of(s1, client.seq(), s3, s4, s5, s6)).isSorted().doesNotHaveDuplicates();
    assertThat(s1).isPositive();
  }

  @Test
  void reopen_seesEverythingWrittenBefore_andSeqKeepsGrowing() {
    Store first = open();
    Versioned<EncryptionKey> key = insertKey(first, 1, T0, T0, T0.plusSeconds(1), secret(1));
    first.salts().saveRotations(List.of(new BucketSalt(9, 1, T0)));
    first.salts().saveScheduledRotation(T0, List.of(new BucketSalt(9, 2, T0)));
    Versioned<OptOut> optOut = first.optOuts().record(hash(1), T0);
    Versioned<ApiClient> client =
        first
            .clients()
            .insert("c", 0, Set.of(Role.ADMIN), true, T0, digest("c"), clientSecret("c"));
    first.meta().putIfAbsent("created", bytes("x"));
    Deduction deduction = first.deductions().insert(draft("kept", "r1"), T0).deduction();
    first.deductions().setStatus(deduction.id(), DeductionStatus.EXPIRED, T0.plusSeconds(1));
    first.close();

    Store second = open();
    assertThat(all(second.keys())).containsExactly(key);
    assertThat(all(second.salts()))
        .extracting(Versioned::value)
        .containsExactly(new BucketSalt(9, 2, T0));
    assertThat(second.salts().lastScheduledRun()).contains(T0);
    assertThat(second.optOuts().find(hash(1))).get().extracting(OptOut::optedOutAt).isEqualTo(T0);
    assertSameClient(all(second.clients()).get(0), client);
    assertThat(second.meta().get("created")).get().isEqualTo(bytes("x"));
    assertThat(second.deductions().list(DeductionFilter.status(DeductionStatus.EXPIRED), 0, 0))
        .containsExactly(deduction.withStatus(DeductionStatus.EXPIRED, T0.plusSeconds(1)));
    assertThat(second.deductions().insert(draft("kept", "r1"), T0).created()).isFalse();
    assertThat(second.deductions().insert(draft("new"), T0).deduction().id())
        .isGreaterThan(deduction.id());
    assertThat(second.optOuts().record(hash(2), T0).seq())
        .isGreaterThan(client.seq())
        .isGreaterThan(optOut.seq());
  }

  // ---- job lock -----------------------------------------------------------------------------

  @Test
  void jobLock_excludesAConcurrentSecondRunOfTheSameJob() throws Exception {
    Store store = open();

    whileJobRuns(
        store,
        "rotate",
        () -> {
          assertThat(store.jobLock().runExclusive("rotate", () -> "second")).isEmpty();
          assertThat(store.jobLock().runExclusive("other", () -> "other")).contains("other");
        });

    assertThat(store.jobLock().runExclusive("rotate", () -> "third")).contains("third");
  }

  @Test
  void jobLock_isNotReentrant_andIsReleasedWhenTheJobThrows() {
    Store store = open();
    Optional<Optional<String>> nested =
        store
            .jobLock()
            .runExclusive("rotate", () -> store.jobLock().runExclusive("rotate", () -> "inner"));
    assertThat(nested).contains(Optional.empty());

    IllegalStateException boom = new IllegalStateException("job failed");
    assertThatThrownBy(
            () ->
                store
                    .jobLock()
                    .runExclusive(
                        "rotate",
                        () -> {
                          throw boom;
                        }))
        .isSameAs(boom);
    assertThat(store.jobLock().runExclusive("rotate", () -> "after")).contains("after");
  }

  // ---- schema and lifecycle -----------------------------------------------------------------

  @Test
  void schema_hasTheSameTablesAndColumnsOnEveryEngine() throws SQLException {
    open();
    Map<String, Set<String>> expected = new LinkedHashMap<>();
    expected.put("schema_version", Set.of("version", "name", "applied_ms"));
    expected.put("meta", Set.of("name", "value"));
    expected.put(
        "encryption_key",
        Set.of(
            "id",
            "site_id",
            "predecessor_id",
            "created_ms",
            "activates_ms",
            "expires_ms",
            "secret",
            "seq"));
    expected.put(
        "bucket_salt", Set.of("bucket_index", "generation", "effective_ms", "refresh_ms", "seq"));
    expected.put("salt_rotation_run", Set.of("period_start_ms", "buckets", "rotated_ms"));
    expected.put("opt_out", Set.of("first_level_hash", "opted_out_ms", "seq"));
    expected.put(
        "api_client",
        Set.of(
            "id",
            "name",
            "site_id",
            "roles",
            "enabled",
            "created_ms",
            "key_id",
            "key_salt",
            "key_hash",
            "secret",
            "seq"));
    expected.put(
        "deduction",
        Set.of(
            "id",
            "title",
            "description",
            "pay_method_id",
            "status",
            "request_id",
            "created_ms",
            "updated_ms",
            "version",
            "valid_until_ms",
            "close_reason"));
    expected.put(
        "deduction_event",
        Set.of(
            "seq",
            "deduction_id",
            "kind",
            "at_ms",
            "actor",
            "title",
            "description",
            "pay_method_id",
            "status",
            "version",
            "valid_until_ms",
            "close_reason",
            "created_ms",
            "updated_ms"));
    try (Connection c = connectDirectly();
        Statement s = c.createStatement()) {
      for (Map.Entry<String, Set<String>> table : expected.entrySet()) {
        try (ResultSet rs = s.executeQuery("SELECT * FROM " + table.getKey() + " WHERE 1 = 0")) {
          ResultSetMetaData md = rs.getMetaData();
          Set<String> columns = new TreeSet<>();
          for (int i = 1; i <= md.getColumnCount(); i++) {
            columns.add(md.getColumnName(i).toLowerCase(Locale.ROOT));
          }
          columns.removeAll(engineOnlyColumns());
          assertThat(columns)
              .as(table.getKey())
              .containsExactlyInAnyOrderElementsOf(table.getValue());
        }
      }
      try (ResultSet rs =
          s.executeQuery("SELECT version, name FROM schema_version ORDER BY version")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(1);
        assertThat(rs.getString(2)).isEqualTo("init");
      }
    }
  }

  @Test
  void migrationV3_onAVersion2Store_keepsItsRowsAndCarriesTheLastSaltRotationDayOver()
      throws SQLException {
    try (Connection c = connectDirectly();
        Statement s = c.createStatement()) {
      boolean sqlite = schemaUpTo(c, s, 2).equals("sqlite");
      if (sqlite) {
        s.execute("UPDATE change_counter SET value = value + 1");
      }
      s.execute(
          "INSERT INTO encryption_key (site_id, created_ms, activates_ms, expires_ms, secret, seq)"
              + " VALUES (-1, 0, 0, 1000, "
              + (sqlite ? "x'" : "'\\x")
              + "00".repeat(32)
              + "', "
              + (sqlite ? "(SELECT value FROM change_counter)" : "nextval('change_seq')")
              + ")");
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO meta (name, value) VALUES (?, ?)")) {
        ps.setString(1, "salt.rotation.last_day");
        ps.setBytes(2, bytes("2026-03-05"));
        ps.executeUpdate();
      }
    }

    Store store = open();

    assertThat(store.salts().lastScheduledRun()).contains(Instant.parse("2026-03-05T00:00:00Z"));
    List<Versioned<EncryptionKey>> old = all(store.keys());
    assertThat(old).hasSize(1);
    KeyStore.Inserted next =
        store.keys().insert(-1, old.get(0).value().id(), T0, T0, T0.plusSeconds(1), secret(1));
    assertThat(next.created()).isTrue();
    assertThat(all(store.keys())).hasSize(2);
  }

  @Test
  void migrationV4_onAVersion3Store_keepsItsClients_withoutASecretUntilOneIsGiven()
      throws SQLException {
    try (Connection c = connectDirectly();
        Statement s = c.createStatement()) {
      boolean sqlite = schemaUpTo(c, s, 3).equals("sqlite");
      if (sqlite) {
        s.execute("UPDATE change_counter SET value = value + 1");
      }
      String blob = sqlite ? "x'" : "'\\x";
      s.execute(
          "INSERT INTO api_client (name, site_id, roles, enabled, created_ms, key_id, key_salt,"
              + " key_hash, seq) VALUES ('old', 5, 'MAPPER', TRUE, 0, 'oldkey', "
              + blob
              + "01".repeat(16)
              + "', "
              + blob
              + "02".repeat(32)
              + "', "
              + (sqlite ? "(SELECT value FROM change_counter)" : "nextval('change_seq')")
              + ")");
    }

    Store store = open();

    List<Versioned<ApiClient>> clients = all(store.clients());
    assertThat(clients).hasSize(1);
    ApiClient old = clients.get(0).value();
    assertThat(old.secret()).isNull();
    assertThat(old.key().keyId()).isEqualTo("oldkey");
    ApiClient given =
        new ApiClient(
            old.id(),
            old.name(),
            old.siteId(),
            old.roles(),
            old.enabled(),
            old.created(),
            old.key(),
            clientSecret("given"));
    assertThat(store.clients().update(given)).isPresent();
    ApiClient reread = all(store.clients()).get(0).value();
    assertThat(reread.secret()).isEqualTo(clientSecret("given"));
    assertThat(reread.key()).usingRecursiveComparison().isEqualTo(old.key());
  }

  /**
   * Creates the schema of the first {@code versions} migrations by hand, as an older release left
   * it, and returns the engine's name ({@code sqlite} or {@code postgresql}).
   */
  private static String schemaUpTo(Connection c, Statement s, int versions) throws SQLException {
    String engine =
        c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT).contains("sqlite")
            ? "sqlite"
            : "postgresql";
    s.execute(
        "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
            + " applied_ms BIGINT NOT NULL)");
    for (Migrator.Migration m : Migrator.MIGRATIONS.subList(0, versions)) {
      for (String statement : Migrator.statements(resource(m.resource(engine)))) {
        s.execute(statement);
      }
      s.execute("INSERT INTO schema_version VALUES (" + m.version() + ", '" + m.name() + "', 0)");
    }
    return engine;
  }

  private static String resource(String name) {
    try (var in = StoreContractTest.class.getClassLoader().getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void closedStore_failsWithStoreUnavailable_andIsNotReachable() {
    Store store = open();
    assertThat(store.isReachable()).isTrue();
    store.close();
    assertThat(store.isReachable()).isFalse();
    assertThatThrownBy(() -> store.keys().forEachChange(ChangeCursor.START, v -> {}))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> store.optOuts().record(hash(1), T0))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining(store.describe());
    assertThatThrownBy(() -> store.deductions().insert(draft("d"), T0))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> store.deductions().setStatus(1, DeductionStatus.EXPIRED, T0))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(
            () -> store.deductions().list(DeductionFilter.status(DeductionStatus.NORMAL), 0, 0))
        .isInstanceOf(StoreUnavailableException.class);
    store.close(); // idempotent
  }

  // ---- helpers ------------------------------------------------------------------------------

  static byte[] hash(int i) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(ByteBuffer.allocate(4).putInt(i).array());
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  static byte[] secret(int i) {
    byte[] secret = hash(-i);
    secret[31] ^= 0x5a;
    return secret;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A secret of 32 bytes derived from {@code seed}. */
  static ClientSecret clientSecret(String seed) {
    return ClientSecret.of(hash(seed.hashCode()));
  }

  static ApiKeyDigest digest(String keyId) {
    return new ApiKeyDigest(keyId, bytes("salt-" + keyId), hash(keyId.hashCode()));
  }

  static void assertSameClient(Versioned<ApiClient> actual, Versioned<ApiClient> expected) {
    assertThat(actual.seq()).isEqualTo(expected.seq());
    assertThat(actual.value()).usingRecursiveComparison().isEqualTo(expected.value());
  }

  /** Every row of a change feed: one read from the start. */
  static <T> List<Versioned<T>> all(ChangeFeed<T> feed) {
    return read(feed, ChangeCursor.START).rows();
  }

  /** What one read of a change feed delivered, and the cursor it returned. */
  record Read<T>(List<Versioned<T>> rows, ChangeCursor next) {}

  static <T> Read<T> read(ChangeFeed<T> feed, ChangeCursor since) {
    List<Versioned<T>> rows = new ArrayList<>();
    ChangeCursor next = feed.forEachChange(since, rows::add);
    return new Read<>(rows, next);
  }

  /** Runs {@code n} tasks released at the same moment and returns their results in task order. */
  static <T> List<T> concurrently(int n, IntFunction<Callable<T>> task) throws Exception {
    ExecutorService executor = Executors.newFixedThreadPool(n);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Callable<T> work = task.apply(i);
        futures.add(
            executor.submit(
                () -> {
                  start.await();
                  return work.call();
                }));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get(60, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      executor.shutdownNow();
    }
  }

  /**
   * Runs job {@code job} on {@code holder} in the background and, while it holds the job lock,
   * {@code whileHeld}; then lets the job finish and checks that it ran to the end.
   */
  static void whileJobRuns(Store holder, String job, Runnable whileHeld) throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try {
      Future<Optional<String>> held =
          executor.submit(
              () ->
                  holder
                      .jobLock()
                      .runExclusive(
                          job,
                          () -> {
                            running.countDown();
                            await(release);
                            return "held";
                          }));
      assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
      whileHeld.run();
      release.countDown();
      assertThat(held.get(30, TimeUnit.SECONDS)).contains("held");
    } finally {
      release.countDown();
      executor.shutdownNow();
    }
  }

  static void await(CountDownLatch latch) {
    try {
      if (!latch.await(60, TimeUnit.SECONDS)) {
        throw new AssertionError("latch not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}

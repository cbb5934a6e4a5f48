package dev.veil.storage;

import static dev.veil.storage.StoreContractTest.clientSecret;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.tuple;

import dev.veil.client.ApiClient;
import dev.veil.client.Role;
import dev.veil.common.ChangeCursor;
import dev.veil.common.StoreUnavailableException;
import dev.veil.common.Versioned;
import dev.veil.deduction.Deduction;
import dev.veil.deduction.DeductionEvent;
import dev.veil.deduction.EventPosition;
import dev.veil.optout.OptOut;
import dev.veil.salt.BucketSalt;
import dev.veil.testing.Await;
import dev.veil.webhook.LogPosition;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store contract on PostgreSQL (a fresh schema per test), plus what only matters with several
 * nodes on one database: concurrent migrations, a job lock across nodes, writes seen by peers.
 */
class PostgresStoreTest extends StoreContractTest {
  private PostgresTestDatabase database;

  @BeforeEach
  void createSchema() {
    database = PostgresTestDatabase.create();
  }

  @Override
  protected Store openStore() {
    return Stores.open(database.url(), StoreSettings.defaults().withPoolSize(3));
  }

  @Override
  protected Duration saveRotationsBudget() {
    return Duration.ofSeconds(3); // ~0.2-0.4 s here; room for a loaded CI machine
  }

  @Override
  protected Connection connectDirectly() throws SQLException {
    return database.connect();
  }

  @Override
  protected void afterStoresClosed() {
    if (database != null) {
      database.close();
    }
  }

  @Override
  protected Set<String> engineOnlyColumns() {
    return Set.of("writer_xid");
  }

  // ---- change feed: commits out of sequence order -------------------------------------------

  /**
   * The hole of a plain "seq > highest seen" poll: a transaction takes a seq, a later transaction
   * takes a higher one and commits first, a reader polls in between. The late row must still come.
   */
  @Test
  void changeFeed_aRowCommittedAfterAHigherSeq_isDeliveredByTheNextRead() throws Exception {
    Store store = open();
    Read<OptOut> start = read(store.optOuts(), ChangeCursor.START);
    try (Connection slow = database.connect()) {
      slow.setAutoCommit(false);
      long slowSeq = insertOptOut(slow, hash(1));
      long fastSeq = store.optOuts().record(hash(2), T0).seq();
      assertThat(fastSeq).isGreaterThan(slowSeq);

      Read<OptOut> between = read(store.optOuts(), start.next());
      assertThat(hashes(between.rows())).containsExactly(ByteBuffer.wrap(hash(2)));

      slow.commit();
      Read<OptOut> after = read(store.optOuts(), between.next());
      assertThat(hashes(after.rows())).contains(ByteBuffer.wrap(hash(1)));
      assertThat(after.rows()).extracting(Versioned::seq).contains(slowSeq);
    }
  }

  /**
   * The deduction change log has the same hole to avoid: a change that takes its seq first but
   * commits last must not be skipped by a watcher that read past the later ones meanwhile.
   */
  @Test
  void deductionLog_anEntryCommittedAfterAHigherSeq_isNeverSkipped() throws Exception {
    Store store = open();
    Deduction first = store.deductions().insert(draft("first"), T0).deduction();
    List<DeductionEvent> start = store.deductions().eventsAfter(EventPosition.START, 100);
    EventPosition cursor = start.get(start.size() - 1).position();
    try (Connection slow = database.connect()) {
      slow.setAutoCommit(false);
      try (Statement s = slow.createStatement()) {
        s.executeUpdate(
            "INSERT INTO deduction_event (deduction_id, kind, at_ms, actor, title, description,"
                + " pay_method_id, status, version, close_reason, created_ms, updated_ms)"
                + " VALUES ("
                + first.id()
                + ", 5, 0, 'slow', 'first', '', 0, 0, 9, 0, 0, 0)");
      }
      store.deductions().insert(draft("fast"), T0);

      List<DeductionEvent> between = store.deductions().eventsAfter(cursor, 100);
      for (DeductionEvent e : between) {
        cursor = e.position();
      }
      slow.commit();
      List<DeductionEvent> after = store.deductions().eventsAfter(cursor, 100);

      List<DeductionEvent> seen = new ArrayList<>(between);
      seen.addAll(after);
      assertThat(seen)
          .extracting(DeductionEvent::actor, e -> e.deduction().title())
          .containsExactly(tuple("slow", "first"), tuple("", "fast"));
    }
  }

  /**
   * Transaction ids are numbers: 100 comes after 99. Read in pages of two, entries written by
   * transactions 9, 10, 99 and 100 must come in that order, none skipped (sorted as text, the first
   * page was 10 and 100, and the next page, after 100, skipped 9 and 99).
   */
  @Test
  void deductionLog_readInPages_followsTransactionIdsAcrossAPowerOfTen() throws Exception {
    Store store = open();
    try (Connection c = database.connect();
        Statement s = c.createStatement()) {
      for (long xid : new long[] {100, 9, 99, 10}) {
        s.executeUpdate(
            "INSERT INTO deduction_event (writer_xid, deduction_id, kind, at_ms, actor, title,"
                + " description, pay_method_id, status, version, close_reason, created_ms,"
                + " updated_ms) VALUES ('"
                + xid
                + "', 1, 1, 0, 'x"
                + xid
                + "', 't', '', 0, 0, 1, 0, 0, 0)");
      }
    }
    List<String> seen = new ArrayList<>();
    EventPosition cursor = EventPosition.START;
    for (int page = 0; page < 4; page++) {
      for (DeductionEvent e : store.deductions().eventsAfter(cursor, 2)) {
        seen.add(e.actor());
        cursor = e.position();
      }
    }
    assertThat(seen).containsExactly("x9", "x10", "x99", "x100");
  }

  /** The opt-out log that webhook delivery pages through, across a power of ten as above. */
  @Test
  void optOutLog_readInPages_followsTransactionIdsAcrossAPowerOfTen() throws Exception {
    Store store = open();
    try (Connection c = database.connect();
        Statement s = c.createStatement()) {
      // The trigger stamps the writing transaction's id; these rows stand for old transactions.
      s.execute("ALTER TABLE opt_out DISABLE TRIGGER opt_out_writer_xid");
      try (PreparedStatement insert =
          c.prepareStatement(
              "INSERT INTO opt_out (first_level_hash, opted_out_ms, seq, writer_xid)"
                  + " VALUES (?, ?, nextval('change_seq'), CAST(? AS xid8))")) {
        int i = 0;
        for (long xid : new long[] {100, 9, 99, 10}) {
          insert.setBytes(1, hash(i++));
          insert.setLong(2, xid);
          insert.setString(3, Long.toString(xid));
          insert.executeUpdate();
        }
      }
      s.execute("ALTER TABLE opt_out ENABLE ALWAYS TRIGGER opt_out_writer_xid");
    }
    List<Long> seen = new ArrayList<>();
    LogPosition cursor = LogPosition.START;
    for (int page = 0; page < 4; page++) {
      for (var o : store.webhooks().optOutsAfter(cursor, 2)) {
        seen.add(o.optedOutAt().toEpochMilli());
        cursor = o.position();
      }
    }
    assertThat(seen).containsExactly(9L, 10L, 99L, 100L);
  }

  @Test
  void changeFeed_anUpdateCommittedAfterAHigherSeq_isDeliveredByTheNextRead() throws Exception {
    Store store = open();
    Versioned<ApiClient> client =
        store
            .clients()
            .insert("c", 0, Set.of(Role.MAPPER), true, T0, digest("c"), clientSecret("c"));
    store.salts().saveRotations(List.of(new BucketSalt(3, 1, T0)));
    Read<ApiClient> clientsBefore = read(store.clients(), ChangeCursor.START);
    Read<BucketSalt> saltsBefore = read(store.salts(), ChangeCursor.START);
    try (Connection slow = database.connect()) {
      slow.setAutoCommit(false);
      try (Statement s = slow.createStatement()) {
        s.executeUpdate(
            "UPDATE api_client SET enabled = false, seq = nextval('change_seq') WHERE id = "
                + client.value().id());
        s.executeUpdate(
            "UPDATE bucket_salt SET generation = 2, seq = nextval('change_seq') WHERE bucket_index"
                + " = 3");
      }
      // An explicit site id: asking for a site of its own would wait for the open transaction.
      store
          .clients()
          .insert(
              "later", 7, Set.of(Role.MAPPER), true, T0, digest("later"), clientSecret("later"));
      store.salts().saveRotations(List.of(new BucketSalt(4, 1, T0)));
      Read<ApiClient> clientsBetween = read(store.clients(), clientsBefore.next());
      Read<BucketSalt> saltsBetween = read(store.salts(), saltsBefore.next());

      slow.commit();
      assertThat(read(store.clients(), clientsBetween.next()).rows())
          .anySatisfy(v -> assertThat(v.value().enabled()).isFalse());
      assertThat(read(store.salts(), saltsBetween.next()).rows())
          .extracting(Versioned::value)
          .contains(new BucketSalt(3, 2, T0));
    }
  }

  /**
   * Writers on two connections that hold their transactions open for a random moment after taking a
   * seq, and a reader that polls all the while: the reader ends with every committed row, also the
   * many that became visible behind a higher seq (counted, to show the test meets the case).
   */
  @Test
  void changeFeed_underConcurrentOutOfOrderCommits_neverMissesARow() throws Exception {
    Store store = open();
    int writers = 4;
    int perWriter = 60;
    Set<ByteBuffer> committed = ConcurrentHashMap.newKeySet();
    Set<ByteBuffer> seen = new HashSet<>();
    long[] highest = {0};
    int[] behindHighest = {0};
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        done.add(
            pool.submit(
                () -> {
                  Random random = new Random(writer);
                  try (Connection c = database.connect()) {
                    c.setAutoCommit(false);
                    for (int i = 0; i < perWriter; i++) {
                      byte[] h = hash(10_000 * (writer + 1) + i);
                      insertOptOut(c, h);
                      // Keep the transaction open a random moment so that the writers commit out of
                      // sequence order: the interleaving under test, not a wait for anything.
                      Thread.sleep(random.nextInt(15));
                      c.commit();
                      committed.add(ByteBuffer.wrap(h));
                    }
                  }
                  return null;
                }));
      }
      ChangeCursor cursor = ChangeCursor.START;
      while (!done.stream().allMatch(Future::isDone)) {
        cursor = poll(store, cursor, seen, highest, behindHighest);
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
      poll(store, cursor, seen, highest, behindHighest);
    } finally {
      pool.shutdownNow();
    }
    System.out.println(
        "PostgresStoreTest: "
            + behindHighest[0]
            + " of "
            + committed.size()
            + " rows became visible behind a higher seq (a seq > last poll would have missed"
            + " them)");
    assertThat(seen).containsAll(committed);
    assertThat(behindHighest[0]).as("rows that became visible behind a higher seq").isPositive();
  }

  private static ChangeCursor poll(
      Store store, ChangeCursor cursor, Set<ByteBuffer> seen, long[] highest, int[] behindHighest) {
    long before = highest[0];
    return store
        .optOuts()
        .forEachChange(
            cursor,
            v -> {
              if (seen.add(ByteBuffer.wrap(v.value().firstLevelHash())) && v.seq() < before) {
                behindHighest[0]++;
              }
              highest[0] = Math.max(highest[0], v.seq());
            });
  }

  /**
   * Inserts an opt-out the way the store does, on {@code c}, without committing; returns its seq.
   */
  private static long insertOptOut(Connection c, byte[] hash) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO opt_out (first_level_hash, opted_out_ms, seq) VALUES (?, 0,"
                + " nextval('change_seq')) RETURNING seq")) {
      ps.setBytes(1, hash);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static List<ByteBuffer> hashes(List<Versioned<OptOut>> rows) {
    return rows.stream().map(v -> ByteBuffer.wrap(v.value().firstLevelHash())).toList();
  }

  // ---- nodes on one database -----------------------------------------------------------------

  @Test
  void open_onTwoNodesAtOnce_migratesExactlyOnce() throws Exception {
    List<Store> stores = concurrently(4, i -> this::open);
    assertThat(stores).allSatisfy(s -> assertThat(s.isReachable()).isTrue());
    try (Connection c = database.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM schema_version")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(Migrator.MIGRATIONS.size());
    }
  }

  @Test
  void writesOfOneNode_areSeenByAnother() {
    Store a = open();
    Store b = open();
    a.optOuts().record(hash(1), T0);
    assertThat(b.optOuts().find(hash(1))).get().extracting(OptOut::optedOutAt).isEqualTo(T0);
    assertThat(b.optOuts().record(hash(1), T0.plusSeconds(1)).value().optedOutAt()).isEqualTo(T0);
  }

  @Test
  void jobLock_excludesTheSameJobOnAnotherNode() throws Exception {
    Store a = open();
    Store b = open();

    whileJobRuns(
        a, "salts", () -> assertThat(b.jobLock().runExclusive("salts", () -> "b")).isEmpty());

    assertThat(b.jobLock().runExclusive("salts", () -> "b")).contains("b");
  }

  @Test
  void jobLock_ofANodeKilledMidJob_isReleased_andAnotherNodeTakesOver() throws Exception {
    Store survivor = open();
    Process holder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                JobLockHolderMain.class.getName(),
                database.url(),
                "rotate-salts")
            .redirectErrorStream(true)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = out.readLine()) != null && !line.equals("holding")) {
        // start-up output of the child
      }
      assertThat(line).as("the child took the lock").isEqualTo("holding");
      assertThat(survivor.jobLock().runExclusive("rotate-salts", () -> "ran")).isEmpty();

      holder.toHandle().destroyForcibly(); // SIGKILL: the kernel closes its connection
      assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();

      Await.until(
          Duration.ofSeconds(30),
          "the dead holder's lock to be released",
          () -> survivor.jobLock().runExclusive("rotate-salts", () -> "ran").isPresent());
    } finally {
      holder.destroyForcibly();
    }
  }

  @Test
  void sessions_boundEveryStatement_andEndIdleTransactions() {
    JdbcStore store =
        (JdbcStore)
            Stores.open(
                database.url(), StoreSettings.defaults().withTimeout(Duration.ofSeconds(3)));
    try {
      String settings =
          store
              .database()
              .read(
                  "read settings",
                  c ->
                      setting(c, "statement_timeout")
                          + ","
                          + setting(c, "idle_in_transaction_session_timeout")
                          + ","
                          + setting(c, "tcp_keepalives_idle"));
      assertThat(settings).isEqualTo("3s,1min,10");
      Throwable slow =
          catchThrowable(
              () ->
                  store
                      .database()
                      .read(
                          "sleep",
                          c -> {
                            try (Statement s = c.createStatement()) {
                              s.execute("SELECT pg_sleep(10)");
                            }
                            return null;
                          }));
      assertThat(slow).isInstanceOf(StoreUnavailableException.class).hasMessageContaining("57014");
      assertThat(store.isReachable()).as("a cancelled statement leaves the store usable").isTrue();
    } finally {
      store.close();
    }
  }

  @Test
  void sessions_commitSynchronously() {
    JdbcStore store = (JdbcStore) open();
    String settings = store.database().read("read settings", c -> setting(c, "synchronous_commit"));
    assertThat(settings).isEqualTo("on");
  }

  @Test
  void sqlErrors_becomeStoreUnavailable_withoutRowValues() {
    JdbcStore store = (JdbcStore) open();
    SqlWork<Integer> insertTwice =
        c -> {
          try (Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO meta (name, value) VALUES ('SECRET-NAME', '\\x00')");
            return s.executeUpdate(
                "INSERT INTO meta (name, value) VALUES ('SECRET-NAME', '\\x00')");
          }
        };
    Throwable thrown =
        catchThrowable(() -> store.database().write("duplicate insert", insertTwice));
    assertThat(thrown)
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("duplicate insert")
        .hasMessageContaining("23505");
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      assertThat(String.valueOf(t.getMessage())).doesNotContain("SECRET");
    }
    assertThat(store.meta().get("SECRET-NAME")).isEmpty(); // rolled back
  }

  @Test
  void describe_isTheUrlWithoutPassword() {
    Store store = open();
    assertThat(store.describe())
        .startsWith("postgresql://")
        .contains("currentSchema=" + database.schema())
        .doesNotContain("password");
  }

  private static String setting(Connection c, String name) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW " + name)) {
      rs.next();
      return rs.getString(1);
    }
  }
}

package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.deduction.Deduction;
import dev.veil.deduction.DeductionFilter;
import dev.veil.deduction.DeductionStatus;
import dev.veil.grpc.deduction.v1.DeductionReq;
import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.grpc.deduction.v1.DeductionStruct;
import dev.veil.server.VeilServer;
import dev.veil.storage.PostgresTestDatabase;
import dev.veil.storage.Store;
import dev.veil.storage.Stores;
import dev.veil.testing.DeductionClient;
import dev.veil.testing.TestConfigs;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * docs/spec.md 6.1 and 8 under concurrency: 8 clients, each on its own channel, send 1,000 mixed
 * creates, opens and closes to a real server at once, with list calls in between; the final table
 * (read through the API and straight from the store) and every list must agree with what the calls
 * acknowledged.
 *
 * <p>Three kinds of record make the check exact where it can be and sound where it cannot:
 *
 * <ul>
 *   <li>private records are touched only by the client that created them, one call after the other,
 *       so their final status must be the one set by that client's last call;
 *   <li>hot records are opened and closed by every client at once. Whatever the interleaving, the
 *       final status must have been set by a call that no other call on that record started after
 *       (a call that started after another finished must take effect after it);
 *   <li>shared creates send the same request id from several clients at once: each id must yield
 *       exactly one record, and every client must get that record back.
 * </ul>
 *
 * <p>The lists are checked the same way: a list that started after a status change was acknowledged
 * must show that status, unless another change of the same record could have come in between (one
 * that did not finish before the first began, or that started before the list ended). A server that
 * acknowledges before its write lands, or loses a write, fails these checks.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DeductionConcurrencyIT {
  private static final int CLIENTS = 8;
  private static final int OPERATIONS = 1_000;
  private static final int HOT_RECORDS = 8;
  private static final int READ_PERCENT = 20;
  private static final int SHARED_REQUEST_IDS = 10;
  private static final long UNKNOWN_ID = 4_000_000_000L;

  @TempDir Path dataDir;

  enum Kind {
    CREATE_PRIVATE,
    CREATE_SHARED,
    SET_HOT,
    SET_PRIVATE,
    SET_UNKNOWN,
    LIST_NORMAL
  }

  /** One acknowledged call: what was asked, when it ran, what came back. */
  record Op(
      int client,
      Kind kind,
      long id,
      DeductionStatus target,
      String requestId,
      long start,
      long end,
      DeductionResp response) {}

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"sqlite", "postgresql"})
  void concurrentClients_leaveATableThatMatchesTheAcknowledgedCalls(String engine)
      throws Exception {
    PostgresTestDatabase pg = engine.equals("postgresql") ? PostgresTestDatabase.create() : null;
    String db = pg != null ? pg.url() : "sqlite:" + dataDir.resolve("veil.db");
    try {
      List<Op> ops = new ArrayList<>();
      Map<DeductionStatus, List<DeductionStruct>> viaApi;
      try (VeilServer server =
          VeilServer.start(
              TestConfigs.config("data.dir", dataDir.toString(), "db", db), Clock.systemUTC())) {
        String key = server.bootstrapAdminKey().orElseThrow();
        try (DeductionClient seeder = new DeductionClient(server.grpcPort(), key)) {
          for (int i = 0; i < HOT_RECORDS; i++) {
            long start = System.nanoTime();
            DeductionResp r = seeder.create("hot-" + i, "", 0, "hot-" + i);
            ops.add(
                new Op(
                    -1,
                    Kind.CREATE_PRIVATE,
                    r.getData(0).getId(),
                    DeductionStatus.NORMAL,
                    "hot-" + i,
                    start,
                    System.nanoTime(),
                    r));
          }
        }
        List<Long> hot = ops.stream().map(Op::id).toList();
        ops.addAll(runClients(server.grpcPort(), key, hot));
        try (DeductionClient reader = new DeductionClient(server.grpcPort(), key)) {
          viaApi =
              Map.of(
                  DeductionStatus.NORMAL,
                  reader.listNormal().getDataList(),
                  DeductionStatus.EXPIRED,
                  reader.listExpired().getDataList());
          assertThat(paged(reader, DeductionStatus.NORMAL))
              .isEqualTo(viaApi.get(DeductionStatus.NORMAL));
          assertThat(paged(reader, DeductionStatus.EXPIRED))
              .isEqualTo(viaApi.get(DeductionStatus.EXPIRED));
        }
      }
      assertThat(ops.stream().filter(op -> op.kind() != Kind.LIST_NORMAL))
          .hasSize(HOT_RECORDS + OPERATIONS);
      Map<Long, Deduction> table = readTable(db);

      assertEachAnswer(ops);
      assertApiMatchesTable(viaApi, table);
      assertRecordsMatchCreates(ops, table);
      assertFinalStatuses(ops, table);
      assertListsSawAcknowledgedChanges(ops);
    } finally {
      if (pg != null) {
        pg.close();
      }
    }
  }

  private static List<Op> runClients(int port, String key, List<Long> hot) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    CountDownLatch go = new CountDownLatch(1);
    ConcurrentLinkedQueue<Op> done = new ConcurrentLinkedQueue<>();
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        int client = c;
        futures.add(
            pool.submit(
                () -> {
                  try (DeductionClient api = new DeductionClient(port, key)) {
                    go.await();
                    runOneClient(client, api, hot, done);
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : futures) {
        f.get(240, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    return new ArrayList<>(done);
  }

  private static void runOneClient(
      int client, DeductionClient api, List<Long> hot, Collection<Op> done) {
    Random random = new Random(31L * client + 7);
    List<Long> mine = new ArrayList<>();
    for (int n = 0; n < OPERATIONS / CLIENTS; n++) {
      int dice = random.nextInt(100);
      Kind kind =
          dice < 15
              ? Kind.CREATE_PRIVATE
              : dice < 25
                  ? Kind.CREATE_SHARED
                  : dice < 70 ? Kind.SET_HOT : dice < 95 ? Kind.SET_PRIVATE : Kind.SET_UNKNOWN;
      if (kind == Kind.SET_PRIVATE && mine.isEmpty()) {
        kind = Kind.SET_HOT;
      }
      DeductionStatus target =
          random.nextBoolean() ? DeductionStatus.NORMAL : DeductionStatus.EXPIRED;
      long id =
          switch (kind) {
            case SET_HOT -> hot.get(random.nextInt(hot.size()));
            case SET_PRIVATE -> mine.get(random.nextInt(mine.size()));
            case SET_UNKNOWN -> UNKNOWN_ID;
            default -> 0;
          };
      String requestId =
          switch (kind) {
            case CREATE_PRIVATE -> "c" + client + "-" + n;
            case CREATE_SHARED -> "shared-" + random.nextInt(SHARED_REQUEST_IDS);
            default -> "";
          };
      long start = System.nanoTime();
      DeductionResp response =
          switch (kind) {
            case CREATE_PRIVATE, CREATE_SHARED ->
                api.create(requestId, "made by " + requestId, payMethodOf(requestId), requestId);
            default -> target == DeductionStatus.NORMAL ? api.open(id) : api.close(id);
          };
      long end = System.nanoTime();
      if (kind == Kind.CREATE_PRIVATE || kind == Kind.CREATE_SHARED) {
        id = Integer.toUnsignedLong(response.getData(0).getId());
        target = kind == Kind.CREATE_PRIVATE ? DeductionStatus.NORMAL : null;
        if (kind == Kind.CREATE_PRIVATE) {
          mine.add(id);
        }
      }
      done.add(new Op(client, kind, id, target, requestId, start, end, response));
      if (random.nextInt(100) < READ_PERCENT) {
        long listStart = System.nanoTime();
        DeductionResp list = api.listNormal();
        done.add(new Op(client, Kind.LIST_NORMAL, 0, null, "", listStart, System.nanoTime(), list));
      }
    }
  }

  private static int payMethodOf(String requestId) {
    return requestId.hashCode() & 0x7fff_ffff;
  }

  private static List<DeductionStruct> paged(DeductionClient reader, DeductionStatus status) {
    List<DeductionStruct> all = new ArrayList<>();
    String token = "";
    do {
      DeductionReq request = DeductionReq.newBuilder().setPageSize(7).setPageToken(token).build();
      DeductionResp page =
          status == DeductionStatus.NORMAL
              ? reader.api().getDeductionList(request)
              : reader.api().getExpiredDeductionList(request);
      all.addAll(page.getDataList());
      token = page.getNextPageToken();
    } while (!token.isEmpty());
    return all;
  }

  private static Map<Long, Deduction> readTable(String db) {
    try (Store store = Stores.open(db)) {
      Map<Long, Deduction> table = new TreeMap<>();
      for (DeductionStatus status : DeductionStatus.values()) {
        for (Deduction d : store.deductions().list(DeductionFilter.status(status), 0, 0)) {
          assertThat(table.put(d.id(), d)).as("record %d listed twice", d.id()).isNull();
        }
      }
      return table;
    }
  }

  /**
   * Every call succeeded (unknown ids: code 2) and returned the record in the state it asked for.
   */
  private static void assertEachAnswer(List<Op> ops) {
    for (Op op : ops) {
      DeductionResp r = op.response();
      if (op.kind() == Kind.LIST_NORMAL) {
        assertThat(r.getCode()).isZero();
        assertThat(r.getDataList()).extracting(DeductionStruct::getId).isSorted();
        continue;
      }
      if (op.kind() == Kind.SET_UNKNOWN) {
        assertThat(r.getCode()).as(op.toString()).isEqualTo(2);
        assertThat(r.getDataCount()).isZero();
        continue;
      }
      assertThat(r.getCode()).as(op.toString()).isZero();
      assertThat(r.getSuccess()).isTrue();
      assertThat(r.getDataCount()).isEqualTo(1);
      DeductionStruct d = r.getData(0);
      assertThat(Integer.toUnsignedLong(d.getId())).isEqualTo(op.id());
      switch (op.kind()) {
        case SET_HOT, SET_PRIVATE ->
            assertThat(d.getStatus()).as(op.toString()).isEqualTo(op.target().code());
        case CREATE_PRIVATE -> {
          assertThat(d.getStatus()).isZero();
          assertThat(d.getCreatedMs()).isEqualTo(d.getUpdatedMs());
        }
        default -> assertThat(d.getTitle()).isEqualTo(op.requestId());
      }
    }
    Map<String, Set<Long>> idsPerSharedRequest =
        ops.stream()
            .filter(op -> op.kind() == Kind.CREATE_SHARED)
            .collect(
                Collectors.groupingBy(
                    Op::requestId, Collectors.mapping(Op::id, Collectors.toSet())));
    assertThat(idsPerSharedRequest).isNotEmpty();
    idsPerSharedRequest.forEach((requestId, ids) -> assertThat(ids).as(requestId).hasSize(1));
  }

  private static void assertApiMatchesTable(
      Map<DeductionStatus, List<DeductionStruct>> viaApi, Map<Long, Deduction> table) {
    for (DeductionStatus status : DeductionStatus.values()) {
      List<DeductionStruct> listed = viaApi.get(status);
      assertThat(listed)
          .extracting(d -> Integer.toUnsignedLong(d.getId()))
          .isSorted()
          .containsExactlyElementsOf(
              table.values().stream()
                  .filter(d -> d.status() == status)
                  .map(Deduction::id)
                  .toList());
      assertThat(listed).allSatisfy(d -> assertThat(d.getStatus()).isEqualTo(status.code()));
    }
  }

  /** Exactly the created records exist, each once, with the fields its create sent. */
  private static void assertRecordsMatchCreates(List<Op> ops, Map<Long, Deduction> table) {
    Map<Long, String> createdBy = new HashMap<>();
    for (Op op : ops) {
      if (op.kind() == Kind.CREATE_PRIVATE || op.kind() == Kind.CREATE_SHARED) {
        String previous = createdBy.put(op.id(), op.requestId());
        assertThat(previous == null || previous.equals(op.requestId()))
            .as("id %d reused", op.id())
            .isTrue();
      }
    }
    assertThat(table.keySet()).isEqualTo(createdBy.keySet());
    createdBy.forEach(
        (id, requestId) -> {
          Deduction d = table.get(id);
          if (!requestId.startsWith("hot-")) {
            assertThat(d.title()).isEqualTo(requestId);
            assertThat(d.desc()).isEqualTo("made by " + requestId);
            assertThat(d.payMethodId()).isEqualTo(payMethodOf(requestId));
          }
        });
  }

  private static void assertFinalStatuses(List<Op> ops, Map<Long, Deduction> table) {
    Map<Long, List<Op>> writesPerRecord = writesPerRecord(ops);
    int contended = 0;
    for (Map.Entry<Long, List<Op>> entry : writesPerRecord.entrySet()) {
      List<Op> writes = entry.getValue();
      DeductionStatus actual = table.get(entry.getKey()).status();
      Set<Integer> clients = writes.stream().map(Op::client).collect(Collectors.toSet());
      if (clients.size() == 1) {
        // One client, one call after another: the last call decides.
        Op last = writes.stream().max((a, b) -> Long.compare(a.start(), b.start())).orElseThrow();
        assertThat(actual).as("private record %d", entry.getKey()).isEqualTo(last.target());
      } else {
        Set<DeductionStatus> possible = new HashSet<>();
        for (Op x : writes) {
          if (writes.stream().noneMatch(y -> y.start() > x.end())) {
            possible.add(x.target());
          }
        }
        assertThat(possible).as("hot record %d", entry.getKey()).contains(actual);
        contended++;
      }
    }
    assertThat(contended).isEqualTo(HOT_RECORDS);
    table.values().stream()
        .filter(d -> !writesPerRecord.containsKey(d.id()))
        .forEach(
            d ->
                assertThat(d.status())
                    .as("record %d, only created", d.id())
                    .isEqualTo(DeductionStatus.NORMAL));
  }

  /** The calls that set a status (creates included), per record. */
  private static Map<Long, List<Op>> writesPerRecord(List<Op> ops) {
    return ops.stream()
        .filter(op -> op.target() != null && op.kind() != Kind.SET_UNKNOWN)
        .collect(Collectors.groupingBy(Op::id));
  }

  /**
   * Each list saw, for every record whose create was acknowledged before the list started, a status
   * that some change could have left: a change with that target that started before the list ended
   * and was not followed by another change that finished before the list started.
   */
  private static void assertListsSawAcknowledgedChanges(List<Op> ops) {
    Map<Long, List<Op>> writes = writesPerRecord(ops);
    Map<Long, Op> creates = new HashMap<>();
    ops.stream()
        .filter(op -> op.kind() == Kind.CREATE_PRIVATE)
        .forEach(op -> creates.put(op.id(), op));
    List<Op> lists = ops.stream().filter(op -> op.kind() == Kind.LIST_NORMAL).toList();
    assertThat(lists).hasSizeGreaterThan(OPERATIONS * READ_PERCENT / 200);
    int checked = 0;
    for (Op list : lists) {
      Set<Long> normal =
          list.response().getDataList().stream()
              .map(d -> Integer.toUnsignedLong(d.getId()))
              .collect(Collectors.toSet());
      for (Map.Entry<Long, Op> created : creates.entrySet()) {
        if (created.getValue().end() >= list.start()) {
          continue; // created while the list ran, or later: either answer is right
        }
        DeductionStatus seen =
            normal.contains(created.getKey()) ? DeductionStatus.NORMAL : DeductionStatus.EXPIRED;
        List<Op> changes = writes.get(created.getKey());
        boolean explained =
            changes.stream()
                .anyMatch(
                    w ->
                        w.target() == seen
                            && w.start() < list.end()
                            && changes.stream()
                                .noneMatch(
                                    later ->
                                        w.end() < later.start() && later.end() < list.start()));
        assertThat(explained)
            .as("record %d seen %s by a list of client %d", created.getKey(), seen, list.client())
            .isTrue();
        checked++;
      }
    }
    assertThat(checked).isPositive();
  }
}

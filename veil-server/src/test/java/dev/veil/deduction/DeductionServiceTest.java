package dev.veil.deduction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.veil.audit.AuditLog;
import dev.veil.common.StoreUnavailableException;
import dev.veil.testing.InMemoryDeductionStore;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * docs/spec.md 6.1 decided by {@link DeductionService}, over an in-memory store and a hand-moved
 * clock.
 */
class DeductionServiceTest {
  private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

  private final MutableClock clock = new MutableClock(T0);
  private final AtomicBoolean down = new AtomicBoolean();
  private final InMemoryDeductionStore store =
      new InMemoryDeductionStore(
          () -> {
            if (down.get()) {
              throw new StoreUnavailableException("connection refused (test outage)", null);
            }
          });
  private final InMemoryStores auditStores = new InMemoryStores();
  private final DeductionService service =
      new DeductionService(store, new AuditLog(auditStores.audit(), clock), clock);

  private Deduction created(String title) {
    DeductionResult r = service.create(title, "", 0, "");
    assertThat(r.code()).isEqualTo(DeductionCode.SUCCESS);
    return r.records().get(0);
  }

  private static void assertCode(DeductionResult r, DeductionCode code) {
    assertThat(r.code()).isEqualTo(code);
    assertThat(r.success()).isEqualTo(code == DeductionCode.SUCCESS);
  }

  // --- create ---

  @Test
  void create_storesEveryField_startsNormal_andReturnsTheRecord() {
    DeductionResult r = service.create("Gym membership", "monthly, 1st", 4_000_000_000L, "");

    assertCode(r, DeductionCode.SUCCESS);
    assertThat(r.message()).isEqualTo("success");
    assertThat(r.records())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.id()).isEqualTo(1);
              assertThat(d.title()).isEqualTo("Gym membership");
              assertThat(d.desc()).isEqualTo("monthly, 1st");
              assertThat(d.payMethodId()).isEqualTo(4_000_000_000L);
              assertThat(d.status()).isEqualTo(DeductionStatus.NORMAL);
              assertThat(d.created()).isEqualTo(T0);
              assertThat(d.updated()).isEqualTo(T0);
            });
    assertThat(service.list(DeductionStatus.NORMAL, 0, "").records()).isEqualTo(r.records());
  }

  @Test
  void create_stripsTheTitle_andCountsCodePoints() {
    assertThat(created("  padded \t").title()).isEqualTo("padded");
    String emoji = "\uD83D\uDE00".repeat(128); // 128 code points, 256 UTF-16 units
    assertThat(created(emoji).title()).isEqualTo(emoji);
  }

  @Test
  void create_withBadFields_isInvalidArgumentNamingTheField_andStoresNothing() {
    record Case(String title, String desc, long payMethodId, String requestId, String message) {}
    List<Case> cases =
        List.of(
            new Case("", "", 0, "", "invalid argument: title must not be blank"),
            new Case(null, "", 0, "", "invalid argument: title must not be blank"),
            new Case(" \t\n ", "", 0, "", "invalid argument: title must not be blank"),
            new Case("\u00a0", "", 0, "", "invalid argument: title must not be blank"),
            new Case("\u200b\u200b", "", 0, "", "invalid argument: title must not be blank"),
            new Case(
                " \u202e\u2066\ufeff\u3000\u2028 ",
                "",
                0,
                "",
                "invalid argument: title must not be blank"),
            new Case(
                "\uDB40\uDC01\ufe0f\u3164", "", 0, "", "invalid argument: title must not be blank"),
            new Case(
                "x".repeat(129),
                "",
                0,
                "",
                "invalid argument: title must be at most 128 characters"),
            new Case(
                "x".repeat(10_000),
                "",
                0,
                "",
                "invalid argument: title must be at most 128 characters"),
            new Case(
                "a\u0000b",
                "",
                0,
                "",
                "invalid argument: title must not contain control characters"),
            new Case(
                "a\nb", "", 0, "", "invalid argument: title must not contain control characters"),
            new Case(
                "t",
                "d".repeat(1025),
                0,
                "",
                "invalid argument: desc must be at most 1024 characters"),
            new Case(
                "t",
                "nul\u0000",
                0,
                "",
                "invalid argument: desc must not contain control characters other than tab and line"
                    + " breaks"),
            new Case(
                "t",
                "",
                -1,
                "",
                "invalid argument: pay_method_id must be between 0 and 4294967295"),
            new Case(
                "t",
                "",
                4_294_967_296L,
                "",
                "invalid argument: pay_method_id must be between 0 and 4294967295"),
            new Case(
                "t",
                "",
                0,
                "has space",
                "invalid argument: request_id must be 1 to 128 printable ASCII characters without"
                    + " spaces"),
            new Case(
                "t",
                "",
                0,
                "r".repeat(129),
                "invalid argument: request_id must be 1 to 128 printable ASCII characters without"
                    + " spaces"));

    for (Case c : cases) {
      DeductionResult r = service.create(c.title(), c.desc(), c.payMethodId(), c.requestId());

      assertCode(r, DeductionCode.INVALID_ARGUMENT);
      assertThat(r.message()).as(c.message()).isEqualTo(c.message());
      assertThat(r.records()).isEmpty();
    }
    assertThat(service.list(DeductionStatus.NORMAL, 0, "").records()).isEmpty();
  }

  @Test
  void create_atTheLimits_isAccepted() {
    DeductionResult r =
        service.create(
            "t".repeat(128),
            "line one\n\tline two\r\n" + "d".repeat(1004),
            4_294_967_295L,
            "r".repeat(128));

    assertCode(r, DeductionCode.SUCCESS);
    assertThat(r.records().get(0).desc()).hasSize(1024);
  }

  @Test
  void create_withTheSameRequestId_returnsTheFirstRecord_andCreatesNoOther() {
    Deduction first = service.create("Gym", "monthly", 7, "req-1").records().get(0);
    clock.advance(Duration.ofMinutes(1));
    service.close(first.id());

    DeductionResult retry = service.create("Gym", "monthly", 7, "req-1");

    assertCode(retry, DeductionCode.SUCCESS);
    assertThat(retry.records().get(0).id()).isEqualTo(first.id());
    assertThat(retry.records().get(0).status()).isEqualTo(DeductionStatus.EXPIRED); // its state now
    assertThat(service.list(DeductionStatus.NORMAL, 0, "").records()).isEmpty();
    assertThat(service.list(DeductionStatus.EXPIRED, 0, "").records()).hasSize(1);
  }

  @Test
  void create_withAUsedRequestIdButOtherFields_isInvalidArgument() {
    service.create("Gym", "monthly", 7, "req-1");

    for (DeductionResult r :
        List.of(
            service.create("Pool", "monthly", 7, "req-1"),
            service.create("Gym", "weekly", 7, "req-1"),
            service.create("Gym", "monthly", 8, "req-1"))) {
      assertCode(r, DeductionCode.INVALID_ARGUMENT);
      assertThat(r.message())
          .isEqualTo("invalid argument: request_id was already used for a different deduction");
    }
    assertThat(service.list(DeductionStatus.NORMAL, 0, "").records()).hasSize(1);
  }

  @Test
  void create_withoutRequestId_twice_createsTwo() {
    assertThat(created("Gym").id()).isEqualTo(1);
    assertThat(created("Gym").id()).isEqualTo(2);
  }

  @Test
  void create_whenNoIdIsLeft_isCreateFailed() {
    store.exhaustIds();

    DeductionResult r = service.create("Gym", "", 0, "");

    assertCode(r, DeductionCode.CREATE_FAILED);
    assertThat(r.message()).isEqualTo("create failed");
  }

  // --- open / close ---

  @Test
  void close_thenOpen_movesTheRecordBetweenTheLists_andStampsUpdated() {
    Deduction d = created("Gym");
    clock.advance(Duration.ofSeconds(5));

    DeductionResult closed = service.close(d.id());

    assertCode(closed, DeductionCode.SUCCESS);
    assertThat(closed.records())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.status()).isEqualTo(DeductionStatus.EXPIRED);
              assertThat(c.created()).isEqualTo(T0);
              assertThat(c.updated()).isEqualTo(T0.plusSeconds(5));
            });
    assertThat(service.list(DeductionStatus.NORMAL, 0, "").records()).isEmpty();
    assertThat(service.list(DeductionStatus.EXPIRED, 0, "").records()).isEqualTo(closed.records());

    clock.advance(Duration.ofSeconds(5));
    DeductionResult opened = service.open(d.id());

    assertThat(opened.records().get(0).status()).isEqualTo(DeductionStatus.NORMAL);
    assertThat(opened.records().get(0).updated()).isEqualTo(T0.plusSeconds(10));
    assertThat(service.list(DeductionStatus.EXPIRED, 0, "").records()).isEmpty();
  }

  @Test
  void openAndClose_areIdempotent_andLeaveUpdatedAlone() {
    Deduction d = created("Gym");
    clock.advance(Duration.ofSeconds(5));

    DeductionResult openAgain = service.open(d.id());
    service.close(d.id());
    clock.advance(Duration.ofSeconds(5));
    DeductionResult closeAgain = service.close(d.id());

    assertCode(openAgain, DeductionCode.SUCCESS);
    assertThat(openAgain.records().get(0)).isEqualTo(d);
    assertCode(closeAgain, DeductionCode.SUCCESS);
    assertThat(closeAgain.records().get(0).updated()).isEqualTo(T0.plusSeconds(5));
  }

  @Test
  void openAndClose_unknownOrZeroOrOutOfRangeId_isRecordNotFound() {
    created("Gym");
    for (long id : new long[] {0, 2, 4_294_967_295L, -1, 4_294_967_296L}) {
      for (DeductionResult r : List.of(service.open(id), service.close(id))) {
        assertCode(r, DeductionCode.RECORD_NOT_FOUND);
        assertThat(r.message()).isEqualTo("record not found");
        assertThat(r.records()).isEmpty();
      }
    }
  }

  // --- lists and paging ---

  @Test
  void lists_areSplitByStatus_andOrderedById() {
    for (int i = 1; i <= 6; i++) {
      created("d" + i);
    }
    service.close(5);
    service.close(2);

    assertThat(service.list(DeductionStatus.NORMAL, 0, "").records())
        .extracting(Deduction::id)
        .containsExactly(1L, 3L, 4L, 6L);
    assertThat(service.list(DeductionStatus.EXPIRED, 0, "").records())
        .extracting(Deduction::id)
        .containsExactly(2L, 5L);
  }

  @Test
  void list_withPageSize_walksEveryRecordOnce_thenHasNoToken() {
    for (int i = 1; i <= 7; i++) {
      created("d" + i);
    }
    List<Long> seen = new ArrayList<>();
    List<Integer> pageSizes = new ArrayList<>();
    String token = "";
    do {
      DeductionResult page = service.list(DeductionStatus.NORMAL, 3, token);
      assertCode(page, DeductionCode.SUCCESS);
      page.records().forEach(d -> seen.add(d.id()));
      pageSizes.add(page.records().size());
      token = page.nextPageToken();
    } while (!token.isEmpty());

    assertThat(seen).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    assertThat(pageSizes).containsExactly(3, 3, 1);
  }

  @Test
  void list_pageSizeEqualToTheCount_hasNoNextToken() {
    created("a");
    created("b");

    assertThat(service.list(DeductionStatus.NORMAL, 2, "").nextPageToken()).isEmpty();
    assertThat(service.list(DeductionStatus.NORMAL, 0, "").nextPageToken()).isEmpty();
  }

  @Test
  void list_tokenStaysValidWhileRecordsChange() {
    for (int i = 1; i <= 4; i++) {
      created("d" + i);
    }
    DeductionResult first = service.list(DeductionStatus.NORMAL, 2, "");
    service.close(1);
    service.close(3);
    created("d5");

    DeductionResult second = service.list(DeductionStatus.NORMAL, 2, first.nextPageToken());

    assertThat(second.records()).extracting(Deduction::id).containsExactly(4L, 5L);
  }

  @Test
  void list_withATokenThatIsNotOurs_isInvalidArgument() {
    created("a");
    for (String token :
        List.of(
            "garbage",
            "%%%",
            "ZDE6MA",
            "ZDE6LTE",
            "eDE6NQ",
            "ZDE6NDI5NDk2NzI5Ng",
            "A".repeat(100))) {
      DeductionResult r = service.list(DeductionStatus.NORMAL, 1, token);

      assertCode(r, DeductionCode.INVALID_ARGUMENT);
      assertThat(r.message())
          .as(token)
          .isEqualTo("invalid argument: page_token is not a token from a previous page");
    }
  }

  @Test
  void list_negativePageSize_isInvalidArgument() {
    assertCode(service.list(DeductionStatus.NORMAL, -1, ""), DeductionCode.INVALID_ARGUMENT);
  }

  // --- store outage ---

  @Test
  void everyMethod_duringAnOutage_isStorageUnavailable_andWorksAgainAfterwards() {
    Deduction d = created("Gym");
    down.set(true);

    List<DeductionResult> results =
        List.of(
            service.create("Pool", "", 0, ""),
            service.open(d.id()),
            service.close(d.id()),
            service.list(DeductionStatus.NORMAL, 0, ""),
            service.list(DeductionStatus.EXPIRED, 5, ""));

    for (DeductionResult r : results) {
      assertCode(r, DeductionCode.STORAGE_UNAVAILABLE);
      assertThat(r.message()).isEqualTo("storage unavailable");
      assertThat(r.records()).isEmpty();
    }
    down.set(false);
    assertThat(service.list(DeductionStatus.NORMAL, 0, "").records()).containsExactly(d);
  }

  @Test
  void badInput_duringAnOutage_isStillInvalidArgument() {
    down.set(true);

    assertCode(service.create("", "", 0, ""), DeductionCode.INVALID_ARGUMENT);
    assertCode(service.open(0), DeductionCode.RECORD_NOT_FOUND);
  }

  // --- versions, validity windows, expiry, history ---

  @Test
  void openAndClose_withTheCurrentVersion_change_andWithAStaleOne_areVersionConflict() {
    Deduction d = created("v");
    clock.advance(Duration.ofSeconds(1));

    DeductionResult closed = service.close(d.id(), 1);
    DeductionResult stale = service.open(d.id(), 1, 0);
    DeductionResult staleClose = service.close(d.id(), 1);

    assertCode(closed, DeductionCode.SUCCESS);
    assertThat(closed.records().get(0).version()).isEqualTo(2);
    assertThat(closed.records().get(0).closeReason()).isEqualTo(CloseReason.MANUAL);
    assertCode(stale, DeductionCode.VERSION_CONFLICT);
    assertThat(stale.message()).isEqualTo("version conflict: the deduction is at version 2");
    assertThat(stale.records()).isEmpty();
    assertCode(staleClose, DeductionCode.VERSION_CONFLICT);
    assertThat(service.get(d.id()).records().get(0)).isEqualTo(closed.records().get(0));
    DeductionResult reopened = service.open(d.id(), 2, 0);
    assertCode(reopened, DeductionCode.SUCCESS);
    assertThat(reopened.records().get(0).version()).isEqualTo(3);
    assertThat(reopened.records().get(0).closeReason()).isEqualTo(CloseReason.NONE);
    assertCode(service.open(d.id(), 3, 0), DeductionCode.SUCCESS); // idempotent, same version
    assertThat(service.get(d.id()).records().get(0).version()).isEqualTo(3);
    assertCode(service.close(d.id(), -1), DeductionCode.INVALID_ARGUMENT);
    assertCode(service.close(999, 1), DeductionCode.RECORD_NOT_FOUND);
  }

  @Test
  void validityWindow_mustBeInTheFuture_andARecordPastItOpensOnlyWithANewOne() {
    long now = T0.toEpochMilli();
    assertThat(service.create("w", "", 0, "", now).message())
        .isEqualTo("invalid argument: valid_until_ms must be in the future");
    assertCode(service.create("w", "", 0, "", -5), DeductionCode.INVALID_ARGUMENT);
    assertCode(
        service.create("w", "", 0, "", DeductionService.MAX_VALID_UNTIL_MS + 1),
        DeductionCode.INVALID_ARGUMENT);
    Deduction d = service.create("w", "", 0, "", now + 60_000).records().get(0);
    assertThat(d.validUntil()).contains(T0.plusSeconds(60));
    service.close(d.id());
    clock.advance(Duration.ofSeconds(61));

    DeductionResult refused = service.open(d.id());
    DeductionResult reopened = service.open(d.id(), 0, now + 120_000);

    assertCode(refused, DeductionCode.INVALID_ARGUMENT);
    assertThat(refused.message())
        .startsWith("invalid argument: valid_until_ms: the validity window ended at ");
    assertCode(reopened, DeductionCode.SUCCESS);
    assertThat(reopened.records().get(0).validUntil()).contains(T0.plusSeconds(120));
    assertThat(reopened.records().get(0).status()).isEqualTo(DeductionStatus.NORMAL);
  }

  @Test
  void expireDue_closesTheRecordsPastTheirWindow_asScheduled_once() {
    long now = T0.toEpochMilli();
    Deduction soon = service.create("soon", "", 0, "", now + 1_000).records().get(0);
    Deduction later = service.create("later", "", 0, "", now + 60_000).records().get(0);
    Deduction none = created("none");
    int[] told = {0};
    service.onChange(() -> told[0]++);

    assertThat(service.expireDue()).isZero();
    clock.advance(Duration.ofSeconds(1));
    assertThat(service.expireDue()).isEqualTo(1);
    assertThat(service.expireDue()).isZero();

    Deduction expired = service.get(soon.id()).records().get(0);
    assertThat(expired.status()).isEqualTo(DeductionStatus.EXPIRED);
    assertThat(expired.closeReason()).isEqualTo(CloseReason.SCHEDULED);
    assertThat(expired.updated()).isEqualTo(T0.plusSeconds(1));
    assertThat(service.get(later.id()).records().get(0).status()).isEqualTo(DeductionStatus.NORMAL);
    assertThat(service.get(none.id()).records().get(0).status()).isEqualTo(DeductionStatus.NORMAL);
    assertThat(told[0]).isEqualTo(1);
    assertThat(service.history(soon.id()).events())
        .extracting(DeductionEvent::kind, DeductionEvent::actor)
        .containsExactly(
            tuple(DeductionEvent.Kind.CREATED, ""),
            tuple(DeductionEvent.Kind.EXPIRED, DeductionEvent.EXPIRY_ACTOR));
    assertThat(auditStores.audit().list(dev.veil.audit.AuditFilter.ALL, 10))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.action()).isEqualTo("ExpireDeduction");
              assertThat(e.target()).isEqualTo("deduction " + soon.id());
              assertThat(e.actorId()).isZero();
            });
  }

  @Test
  void history_ofAnUnknownRecord_isRecordNotFound() {
    assertCode(service.history(1), DeductionCode.RECORD_NOT_FOUND);
    assertCode(service.history(0), DeductionCode.RECORD_NOT_FOUND);
    Deduction d = created("h");
    service.close(d.id());
    assertThat(service.history(d.id()).events())
        .extracting(DeductionEvent::kind)
        .containsExactly(DeductionEvent.Kind.CREATED, DeductionEvent.Kind.CLOSED);
  }

  @Test
  void list_withFilters_checksThem() {
    assertThat(
            service
                .list(
                    new DeductionFilter(
                        java.util.Set.of(),
                        java.util.Set.of(1L << 32),
                        java.util.Optional.empty(),
                        java.util.Optional.empty()),
                    0,
                    "")
                .message())
        .isEqualTo("invalid argument: pay_method_id must be between 0 and 4294967295");
    assertThat(
            service
                .list(
                    new DeductionFilter(
                        java.util.Set.of(),
                        java.util.Set.of(),
                        java.util.Optional.of(T0),
                        java.util.Optional.of(T0)),
                    0,
                    "")
                .message())
        .isEqualTo("invalid argument: created_from_ms must be before created_before_ms");
  }
}

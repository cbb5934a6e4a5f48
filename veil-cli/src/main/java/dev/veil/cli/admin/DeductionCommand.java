package dev.veil.cli.admin;

import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc.DeductionAdminApiBlockingStub;
import dev.veil.grpc.deduction.v1.DeductionHistoryResp;
import dev.veil.grpc.deduction.v1.DeductionReq;
import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.grpc.deduction.v1.ListDeductionsReq;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

/** {@code veil admin deduction ...}: deduction services (DeductionAdminApi). */
@Command(
    name = "deduction",
    description =
        "List, create, open and close deduction services; show one's history, watch all changes.",
    subcommands = {
      DeductionCommand.ListNormal.class,
      DeductionCommand.ListExpired.class,
      DeductionCommand.Create.class,
      DeductionCommand.Open.class,
      DeductionCommand.Close.class,
      DeductionCommand.Get.class,
      DeductionCommand.History.class,
      DeductionWatch.class
    })
public final class DeductionCommand extends CommandGroup {

  /** An unsigned 32-bit number, as the API's {@code uint32} fields take. */
  static final class Uint32 implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      try {
        return Integer.parseUnsignedInt(value.strip());
      } catch (NumberFormatException e) {
        throw new TypeConversionException("'" + value + "' is not a number from 0 to 4294967295");
      }
    }
  }

  /** An unsigned 64-bit number, as the API's {@code uint64} fields take. */
  static final class Uint64 implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      try {
        return Long.parseUnsignedLong(value.strip());
      } catch (NumberFormatException e) {
        throw new TypeConversionException(
            "'" + value + "' is not a number from 0 to 18446744073709551615");
      }
    }
  }

  /** A status by name, NORMAL or EXPIRED (in any case), as its number on the wire. */
  static final class StatusName implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      int status = DeductionRpc.STATUS_NAMES.indexOf(value.strip().toUpperCase(Locale.ROOT));
      if (status < 0) {
        throw new TypeConversionException(
            "'" + value + "' is not a status: " + String.join(" or ", DeductionRpc.STATUS_NAMES));
      }
      return status;
    }
  }

  /**
   * Paging options of the list commands, and how the command honours them. A page size of 0 (the
   * default) means every record: this client then pages through the list itself, {@value
   * #ALL_PAGE_SIZE} records a call, and prints them as one answer, because the whole list in one
   * message can pass the 4 MiB a gRPC client accepts. A page size the user gives is sent as it is.
   */
  static final class Paging {
    /**
     * Records per call when listing all of them. A record of the maximum size (a 128-code-point
     * title and a 1,024-code-point description, 4 bytes each in UTF-8) takes about 4.7 KB on the
     * wire, so a page stays under half of the 4 MiB limit (about 1.9 MB).
     */
    static final int ALL_PAGE_SIZE = 400;

    @Option(
        names = "--page-size",
        defaultValue = "0",
        converter = Uint32.class,
        paramLabel = "N",
        description = "At most N records (default: 0, all of them, fetched page by page).")
    int pageSize;

    @Option(
        names = "--page-token",
        defaultValue = "",
        paramLabel = "TOKEN",
        description = "Continue after the page that printed this token.")
    String pageToken;

    /** One call of a list method: the page of {@code pageSize} records after {@code pageToken}. */
    @FunctionalInterface
    interface PageCall {
      DeductionResp page(DeductionAdminApiBlockingStub api, int pageSize, String pageToken);
    }

    /** A list method that takes a {@link DeductionReq}, such as {@code GetDeductionList}. */
    static PageCall of(
        BiFunction<DeductionAdminApiBlockingStub, DeductionReq, DeductionResp> method) {
      return (api, size, token) ->
          method.apply(
              api, DeductionReq.newBuilder().setPageSize(size).setPageToken(token).build());
    }

    /**
     * The one page asked for, or with page size 0 every page from {@code --page-token} on, merged
     * into one response (that of the first page with the records of all, and no next page token). A
     * page that answers a non-zero code is returned as it is. Each call gets its own deadline.
     */
    DeductionResp list(DeductionAdminApiBlockingStub api, PageCall call) {
      if (pageSize != 0) {
        try {
          return call.page(withDeadline(api), pageSize, pageToken);
        } catch (StatusRuntimeException e) {
          if (e.getStatus().getCode() != Status.Code.RESOURCE_EXHAUSTED) {
            throw e;
          }
          throw e.getStatus()
              .withDescription(
                  e.getStatus().getDescription()
                      + " (the page is too large: ask for fewer records with --page-size, or 0 for"
                      + " all of them)")
              .asRuntimeException();
        }
      }
      DeductionResp.Builder all = null;
      String token = pageToken;
      do {
        DeductionResp page = call.page(withDeadline(api), ALL_PAGE_SIZE, token);
        if (page.getCode() != 0) {
          return page;
        }
        if (all == null) {
          all = page.toBuilder();
        } else {
          all.addAllData(page.getDataList());
        }
        token = page.getNextPageToken();
      } while (!token.isEmpty());
      return all.setNextPageToken("").build();
    }

    private static DeductionAdminApiBlockingStub withDeadline(DeductionAdminApiBlockingStub api) {
      return api.withDeadlineAfter(AdminCall.DEADLINE_SECONDS, TimeUnit.SECONDS);
    }
  }

  /**
   * The filters of {@code list}. Each one narrows what it lists: without {@code --status} only the
   * open (NORMAL) records, as without filters. With none given, {@code list} calls {@code
   * GetDeductionList}, as clients of the original interface do; with any, {@code ListDeductions}.
   */
  static final class Filters {
    @Option(
        names = "--status",
        split = ",",
        converter = StatusName.class,
        paramLabel = "STATUS",
        description =
            "Only records of these statuses: NORMAL (open), EXPIRED (closed); repeat the option or"
                + " separate them with commas (default: NORMAL).")
    List<Integer> statuses = new ArrayList<>();

    @Option(
        names = "--pay-method-id",
        split = ",",
        converter = Uint32.class,
        paramLabel = "N",
        description =
            "Only records with one of these pay method ids (at most 100); repeat the option or"
                + " separate them with commas.")
    List<Integer> payMethodIds = new ArrayList<>();

    @Option(
        names = "--created-from",
        converter = UtcTime.class,
        paramLabel = "TIME",
        description = "Only records created at or after TIME: " + UtcTime.FORMS + ".")
    Long createdFrom;

    @Option(
        names = "--created-before",
        converter = UtcTime.class,
        paramLabel = "TIME",
        description = "Only records created before TIME (same forms as --created-from).")
    Long createdBefore;

    boolean given() {
      return !statuses.isEmpty()
          || !payMethodIds.isEmpty()
          || createdFrom != null
          || createdBefore != null;
    }

    ListDeductionsReq request() {
      return ListDeductionsReq.newBuilder()
          .addAllStatus(statuses.isEmpty() ? List.of(0) : statuses)
          .addAllPayMethodId(payMethodIds)
          .setCreatedFromMs(createdFrom == null ? 0 : createdFrom)
          .setCreatedBeforeMs(createdBefore == null ? 0 : createdBefore)
          .build();
    }
  }

  @Command(
      name = "list",
      description = {
        "List deductions, ordered by id: the open (NORMAL) ones, or with filters those that match"
            + " every filter given (--status NORMAL,EXPIRED for both statuses)."
      })
  static final class ListNormal extends DeductionRpc {
    @Mixin Filters filters = new Filters();
    @Mixin Paging paging = new Paging();

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      if (!filters.given()) {
        return paging.list(api, Paging.of(DeductionAdminApiBlockingStub::getDeductionList));
      }
      ListDeductionsReq request = filters.request();
      return paging.list(
          api,
          (stub, size, token) ->
              stub.listDeductions(
                  request.toBuilder().setPageSize(size).setPageToken(token).build()));
    }
  }

  @Command(name = "expired", description = "List closed (EXPIRED) deductions, ordered by id.")
  static final class ListExpired extends DeductionRpc {
    @Mixin Paging paging = new Paging();

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      return paging.list(api, Paging.of(DeductionAdminApiBlockingStub::getExpiredDeductionList));
    }
  }

  @Command(name = "create", description = "Create an open (NORMAL) deduction and print it.")
  static final class Create extends DeductionRpc {
    @Option(
        names = "--title",
        required = true,
        description = "Title: 1 to 128 characters, not blank.")
    String title;

    @Option(
        names = "--desc",
        defaultValue = "",
        description = "Description: at most 1,024 characters.")
    String desc;

    @Option(
        names = "--pay-method-id",
        defaultValue = "0",
        converter = Uint32.class,
        paramLabel = "N",
        description = "Pay method id, 0 to 4294967295 (default: 0).")
    int payMethodId;

    @Option(
        names = "--request-id",
        defaultValue = "",
        paramLabel = "KEY",
        description =
            "Idempotency key: repeating the command with it returns the first record instead of a"
                + " new one.")
    String requestId;

    @Option(
        names = "--valid-until",
        converter = UtcTime.class,
        paramLabel = "TIME",
        description =
            "End of the validity window, in the future: "
                + UtcTime.FORMS
                + ". When it has passed, the server closes the record (close reason SCHEDULED)."
                + " Default: no window.")
    long validUntil;

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      return api.createDeduction(
          DeductionReq.newBuilder()
              .setTitle(title)
              .setDesc(desc)
              .setPayMethodId(payMethodId)
              .setRequestId(requestId)
              .setValidUntilMs(validUntil)
              .build());
    }
  }

  @Command(name = "get", description = "Show one deduction, whatever its status.")
  static final class Get extends DeductionRpc {
    @Parameters(paramLabel = "ID", converter = Uint32.class, description = "Deduction id.")
    int id;

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      return api.getDeduction(DeductionReq.newBuilder().setId(id).build());
    }
  }

  /** {@code --expected-version} of open and close. */
  static final class ExpectedVersion {
    @Option(
        names = "--expected-version",
        defaultValue = "0",
        converter = Uint64.class,
        paramLabel = "N",
        description =
            "Change the record only if it is at version N (the VERSION you read); at another"
                + " version nothing changes and the server answers code 5, version conflict."
                + " Default: 0, no check.")
    long version;
  }

  @Command(
      name = "open",
      description = {
        "Open a deduction (status NORMAL); already open is fine (unless --valid-until gives it"
            + " another window, which is a change)."
      })
  static final class Open extends DeductionRpc {
    @Parameters(paramLabel = "ID", converter = Uint32.class, description = "Deduction id.")
    int id;

    @Option(
        names = "--valid-until",
        converter = UtcTime.class,
        paramLabel = "TIME",
        description =
            "New end of the validity window, in the future: "
                + UtcTime.FORMS
                + ". Default: keep the record's; a record whose window has ended opens only with"
                + " a new one.")
    long validUntil;

    @Mixin ExpectedVersion expected = new ExpectedVersion();

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      return api.openDeduction(
          DeductionReq.newBuilder()
              .setId(id)
              .setValidUntilMs(validUntil)
              .setExpectedVersion(expected.version)
              .build());
    }
  }

  @Command(
      name = "close",
      description = "Close a deduction (status EXPIRED); already closed is fine.")
  static final class Close extends DeductionRpc {
    @Parameters(paramLabel = "ID", converter = Uint32.class, description = "Deduction id.")
    int id;

    @Mixin ExpectedVersion expected = new ExpectedVersion();

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      return api.closeDeduction(
          DeductionReq.newBuilder().setId(id).setExpectedVersion(expected.version).build());
    }
  }

  @Command(
      name = "history",
      description = {
        "Show every change of a deduction, oldest first: when, what (CREATED, OPENED, CLOSED,"
            + " EXPIRED by its validity window, UPDATED with another window), the record as the"
            + " change left it, and the client that made it."
      })
  static final class History extends AdminCall {
    @Parameters(paramLabel = "ID", converter = Uint32.class, description = "Deduction id.")
    int id;

    @Override
    int run(Channel channel, Output out) {
      DeductionHistoryResp response =
          DeductionRpc.stub(channel)
              .getDeductionHistory(DeductionReq.newBuilder().setId(id).build());
      if (response.getCode() != 0) {
        return DeductionRpc.refused(out, response, response.getCode(), response.getMessage());
      }
      out.print(
          response,
          w -> {
            if (response.getEventsCount() == 0) {
              w.println("No events.");
            } else {
              DeductionRpc.historyTable(response.getEventsList()).print(w);
            }
          });
      return OK;
    }
  }
}

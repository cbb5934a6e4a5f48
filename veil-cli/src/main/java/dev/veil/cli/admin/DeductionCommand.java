package dev.veil.cli.admin;

import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc.DeductionAdminApiBlockingStub;
import dev.veil.grpc.deduction.v1.DeductionReq;
import dev.veil.grpc.deduction.v1.DeductionResp;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
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
    description = "List, create, open and close deduction services.",
    subcommands = {
      DeductionCommand.ListNormal.class,
      DeductionCommand.ListExpired.class,
      DeductionCommand.Create.class,
      DeductionCommand.Open.class,
      DeductionCommand.Close.class,
      DeductionCommand.Get.class
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

  /**
   * Paging options of the two list commands, and how the command honours them. A page size of 0
   * (the default) means every record: this client then pages through the list itself, {@value
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

    /**
     * The one page asked for, or with page size 0 every page from {@code --page-token} on, merged
     * into one response (that of the first page with the records of all, and no next page token). A
     * page that answers a non-zero code is returned as it is. Each call gets its own deadline.
     */
    DeductionResp list(
        DeductionAdminApiBlockingStub api,
        BiFunction<DeductionAdminApiBlockingStub, DeductionReq, DeductionResp> method) {
      if (pageSize != 0) {
        try {
          return method.apply(
              withDeadline(api),
              DeductionReq.newBuilder().setPageSize(pageSize).setPageToken(pageToken).build());
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
        DeductionResp page =
            method.apply(
                withDeadline(api),
                DeductionReq.newBuilder().setPageSize(ALL_PAGE_SIZE).setPageToken(token).build());
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

  @Command(name = "list", description = "List open (NORMAL) deductions, ordered by id.")
  static final class ListNormal extends DeductionRpc {
    @Mixin Paging paging = new Paging();

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      return paging.list(api, DeductionAdminApiBlockingStub::getDeductionList);
    }
  }

  @Command(name = "expired", description = "List closed (EXPIRED) deductions, ordered by id.")
  static final class ListExpired extends DeductionRpc {
    @Mixin Paging paging = new Paging();

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      return paging.list(api, DeductionAdminApiBlockingStub::getExpiredDeductionList);
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

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      return api.createDeduction(
          DeductionReq.newBuilder()
              .setTitle(title)
              .setDesc(desc)
              .setPayMethodId(payMethodId)
              .setRequestId(requestId)
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

  @Command(name = "open", description = "Open a deduction (status NORMAL); already open is fine.")
  static final class Open extends DeductionRpc {
    @Parameters(paramLabel = "ID", converter = Uint32.class, description = "Deduction id.")
    int id;

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      return api.openDeduction(DeductionReq.newBuilder().setId(id).build());
    }
  }

  @Command(
      name = "close",
      description = "Close a deduction (status EXPIRED); already closed is fine.")
  static final class Close extends DeductionRpc {
    @Parameters(paramLabel = "ID", converter = Uint32.class, description = "Deduction id.")
    int id;

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      return api.closeDeduction(DeductionReq.newBuilder().setId(id).build());
    }
  }
}

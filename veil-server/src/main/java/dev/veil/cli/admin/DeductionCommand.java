package dev.veil.cli.admin;

import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc.DeductionAdminApiBlockingStub;
import dev.veil.grpc.deduction.v1.DeductionReq;
import dev.veil.grpc.deduction.v1.DeductionResp;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

/** {@code veil admin deduction ...}: deduction services (DeductionAdminApi). */
@Command(name = "deduction", description = "List, create, open and close deduction services.",
    subcommands = {
        DeductionCommand.ListNormal.class, DeductionCommand.ListExpired.class, DeductionCommand.Create.class,
        DeductionCommand.Open.class, DeductionCommand.Close.class})
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

  /** Paging options of the two list commands. */
  static final class Paging {
    @Option(names = "--page-size", defaultValue = "0", converter = Uint32.class, paramLabel = "N",
        description = "At most N records (default: 0, all of them).")
    int pageSize;

    @Option(names = "--page-token", defaultValue = "", paramLabel = "TOKEN",
        description = "Continue after the page that printed this token.")
    String pageToken;

    DeductionReq request() {
      return DeductionReq.newBuilder().setPageSize(pageSize).setPageToken(pageToken).build();
    }
  }

  @Command(name = "list", description = "List open (NORMAL) deductions, ordered by id.")
  static final class ListNormal extends DeductionRpc {
    @Mixin
    Paging paging = new Paging();

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      return api.getDeductionList(paging.request());
    }
  }

  @Command(name = "expired", description = "List closed (EXPIRED) deductions, ordered by id.")
  static final class ListExpired extends DeductionRpc {
    @Mixin
    Paging paging = new Paging();

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      return api.getExpiredDeductionList(paging.request());
    }
  }

  @Command(name = "create", description = "Create an open (NORMAL) deduction and print it.")
  static final class Create extends DeductionRpc {
    @Option(names = "--title", required = true, description = "Title: 1 to 128 characters, not blank.")
    String title;

    @Option(names = "--desc", defaultValue = "", description = "Description: at most 1,024 characters.")
    String desc;

    @Option(names = "--pay-method-id", defaultValue = "0", converter = Uint32.class, paramLabel = "N",
        description = "Pay method id, 0 to 4294967295 (default: 0).")
    int payMethodId;

    @Option(names = "--request-id", defaultValue = "", paramLabel = "KEY",
        description = "Idempotency key: repeating the command with it returns the first record instead of a new one.")
    String requestId;

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      return api.createDeduction(DeductionReq.newBuilder().setTitle(title).setDesc(desc).setPayMethodId(payMethodId)
          .setRequestId(requestId).build());
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

  @Command(name = "close", description = "Close a deduction (status EXPIRED); already closed is fine.")
  static final class Close extends DeductionRpc {
    @Parameters(paramLabel = "ID", converter = Uint32.class, description = "Deduction id.")
    int id;

    @Override
    protected DeductionResp execute(DeductionAdminApiBlockingStub api) {
      return api.closeDeduction(DeductionReq.newBuilder().setId(id).build());
    }
  }
}

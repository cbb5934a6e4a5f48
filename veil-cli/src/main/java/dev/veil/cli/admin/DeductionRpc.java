package dev.veil.cli.admin;

import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc;
import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc.DeductionAdminApiBlockingStub;
import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.grpc.deduction.v1.DeductionStruct;
import io.grpc.Channel;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code veil admin deduction} command on {@code DeductionAdminApi}. That API answers business
 * outcomes in the response ({@code code}, {@code message}) with gRPC status OK, so this class turns
 * a non-zero code into exit code 1 with the code and message on stderr. The records of the response
 * are printed as a table, or the whole response as JSON with {@code --json} (also when the code is
 * not 0).
 */
public abstract class DeductionRpc extends AdminCall {
  private static final String[] STATUS_NAMES = {"NORMAL", "EXPIRED"};
  private static final int DESC_COLUMN_WIDTH = 40;

  /**
   * Makes the call of the command on {@code api}, which carries the deadline of one call; the list
   * commands make one call per page and renew it for each.
   */
  protected abstract DeductionResp execute(DeductionAdminApiBlockingStub api);

  @Override
  final int run(Channel channel, Output out) {
    DeductionResp response =
        execute(
            DeductionAdminApiGrpc.newBlockingStub(channel)
                .withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS));
    if (response.getCode() != 0) {
      out.print(response, w -> {});
      out.error(
          "the server answered code "
              + Integer.toUnsignedString(response.getCode())
              + ": "
              + response.getMessage());
      return REFUSED;
    }
    out.print(response, w -> print(w, response));
    return OK;
  }

  private static void print(PrintWriter w, DeductionResp response) {
    if (response.getDataCount() == 0) {
      w.println("No deductions.");
    } else {
      table(response.getDataList()).print(w);
    }
    if (!response.getNextPageToken().isEmpty()) {
      w.println();
      w.println("More records follow: repeat with --page-token " + response.getNextPageToken());
    }
  }

  private static Table table(List<DeductionStruct> records) {
    Table table = new Table("ID", "TITLE", "STATUS", "PAY METHOD", "CREATED", "UPDATED", "DESC");
    for (DeductionStruct d : records) {
      table.row(
          Integer.toUnsignedString(d.getId()),
          d.getTitle(),
          statusName(d.getStatus()),
          Integer.toUnsignedString(d.getPayMethodId()),
          Output.time(d.getCreatedMs()),
          Output.time(d.getUpdatedMs()),
          shortened(d.getDesc()));
    }
    return table;
  }

  static String statusName(int status) {
    return status >= 0 && status < STATUS_NAMES.length
        ? STATUS_NAMES[status]
        : Integer.toUnsignedString(status);
  }

  /**
   * One line of at most {@value #DESC_COLUMN_WIDTH} characters: line breaks and tabs as spaces (the
   * table shows other invisible characters as escapes: {@link Table#printable}).
   */
  static String shortened(String desc) {
    String line = desc.replaceAll("[\\t\\r\\n]+", " ").strip();
    if (line.codePointCount(0, line.length()) <= DESC_COLUMN_WIDTH) {
      return line.isEmpty() ? "-" : line;
    }
    return line.substring(0, line.offsetByCodePoints(0, DESC_COLUMN_WIDTH - 1)) + "…";
  }
}

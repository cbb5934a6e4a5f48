package dev.veil.cli.admin;

import com.google.protobuf.MessageOrBuilder;
import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc;
import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc.DeductionAdminApiBlockingStub;
import dev.veil.grpc.deduction.v1.DeductionEvent;
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
  /** The names of {@code DeductionStruct.status}, by number. */
  static final List<String> STATUS_NAMES = List.of("NORMAL", "EXPIRED");

  /** The names of {@code DeductionStruct.close_reason}, by number; NONE is printed as "-". */
  private static final List<String> CLOSE_REASON_NAMES = List.of("-", "MANUAL", "SCHEDULED");

  /** The names of {@code DeductionEvent.kind}, by number (0 is none). */
  private static final List<String> KIND_NAMES =
      List.of("0", "CREATED", "OPENED", "CLOSED", "EXPIRED", "UPDATED");

  private static final int DESC_COLUMN_WIDTH = 40;

  /**
   * Makes the call of the command on {@code api}, which carries the deadline of one call; the list
   * commands make one call per page and renew it for each.
   */
  protected abstract DeductionResp execute(DeductionAdminApiBlockingStub api);

  @Override
  final int run(Channel channel, Output out) {
    DeductionResp response = execute(stub(channel));
    if (response.getCode() != 0) {
      return refused(out, response, response.getCode(), response.getMessage());
    }
    out.print(response, w -> print(w, response));
    return OK;
  }

  /** A stub of {@code DeductionAdminApi} on {@code channel} whose calls have the usual deadline. */
  static DeductionAdminApiBlockingStub stub(Channel channel) {
    return DeductionAdminApiGrpc.newBlockingStub(channel)
        .withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
  }

  /**
   * Reports a response whose {@code code} is not 0: the response itself with {@code --json}, and
   * the code and message on stderr; returns exit code {@value #REFUSED}.
   */
  static int refused(Output out, MessageOrBuilder response, int code, String message) {
    out.print(response, w -> {});
    out.error("the server answered code " + Integer.toUnsignedString(code) + ": " + message);
    return REFUSED;
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
    Table table =
        new Table(
            "ID",
            "TITLE",
            "STATUS",
            "CLOSE REASON",
            "VERSION",
            "PAY METHOD",
            "VALID UNTIL",
            "CREATED",
            "UPDATED",
            "DESC");
    for (DeductionStruct d : records) {
      table.row(
          Integer.toUnsignedString(d.getId()),
          d.getTitle(),
          statusName(d.getStatus()),
          closeReasonName(d.getCloseReason()),
          Long.toUnsignedString(d.getVersion()),
          Integer.toUnsignedString(d.getPayMethodId()),
          Output.time(d.getValidUntilMs()),
          Output.time(d.getCreatedMs()),
          Output.time(d.getUpdatedMs()),
          shortened(d.getDesc()));
    }
    return table;
  }

  /**
   * The events of one deduction's history as a table; NONE (close reason), 0 (valid until) and an
   * empty actor (the events that describe records as they were when the change log began) as "-".
   */
  static Table historyTable(List<DeductionEvent> events) {
    Table table =
        new Table("TIME", "KIND", "STATUS", "CLOSE REASON", "VERSION", "VALID UNTIL", "ACTOR");
    for (DeductionEvent e : events) {
      DeductionStruct d = e.getDeduction();
      table.row(
          Output.time(e.getAtMs()),
          kindName(e.getKind()),
          statusName(d.getStatus()),
          closeReasonName(d.getCloseReason()),
          Long.toUnsignedString(d.getVersion()),
          Output.time(d.getValidUntilMs()),
          e.getActor().isEmpty() ? "-" : e.getActor());
    }
    return table;
  }

  static String statusName(int status) {
    return name(STATUS_NAMES, status);
  }

  static String closeReasonName(int reason) {
    return name(CLOSE_REASON_NAMES, reason);
  }

  static String kindName(int kind) {
    return name(KIND_NAMES, kind);
  }

  /** The name of wire number {@code number}, or the number itself if it has none here. */
  private static String name(List<String> names, int number) {
    return number >= 0 && number < names.size()
        ? names.get(number)
        : Integer.toUnsignedString(number);
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

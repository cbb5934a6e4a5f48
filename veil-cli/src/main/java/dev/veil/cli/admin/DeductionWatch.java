package dev.veil.cli.admin;

import dev.veil.common.Causes;
import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc;
import dev.veil.grpc.deduction.v1.DeductionEvent;
import dev.veil.grpc.deduction.v1.DeductionStruct;
import dev.veil.grpc.deduction.v1.WatchDeductionsReq;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Iterator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code veil admin deduction watch}: the change stream ({@code WatchDeductions}), one line per
 * event as it arrives, each flushed at once, until the user stops the command (Ctrl-C, SIGTERM),
 * the reader of its output goes away, or the stream ends. The call has no deadline: the stream is
 * meant to stay open.
 *
 * <p>Each line ends with the event's resume token. When the stream breaks (UNAVAILABLE: the node
 * stopped, the connection dropped) the command says on stderr how to continue, {@code
 * --resume-token} with the last token printed, and exits {@value #REFUSED}; a server that cannot be
 * reached at all is reported as for any command ({@value #UNREACHABLE}).
 */
@Command(
    name = "watch",
    description = {
      "Print every change of every deduction as it happens, one line each, ending with the"
          + " change's resume token (with --json: one JSON object a line). Runs until Ctrl-C or"
          + " the server ends the stream. Without --resume-token it starts with the first change"
          + " ever recorded."
    })
final class DeductionWatch extends AdminCall {
  @Option(
      names = "--resume-token",
      defaultValue = "",
      paramLabel = "TOKEN",
      description = "Continue after the change that printed this token (from a previous watch).")
  String resumeToken;

  @Override
  int run(Channel channel, Output out) {
    String last = resumeToken;
    boolean received = false;
    Iterator<DeductionEvent> events =
        DeductionAdminApiGrpc.newBlockingStub(channel)
            .watchDeductions(WatchDeductionsReq.newBuilder().setResumeToken(resumeToken).build());
    try {
      while (events.hasNext()) {
        DeductionEvent event = events.next();
        if (!out.streamed(event, () -> line(event))) {
          return OK; // nobody reads the output any more (a pipe's reader ended): stop watching
        }
        last = event.getResumeToken();
        received = true;
      }
      return OK;
    } catch (StatusRuntimeException e) {
      Status status = e.getStatus();
      if (status.getCode() == Status.Code.CANCELLED && Thread.currentThread().isInterrupted()) {
        return OK; // run inside another program, which interrupted it: stopped, as by Ctrl-C
      }
      if (!received && isUnreachable(status)) {
        throw e; // never connected: "cannot connect", as for any command
      }
      if (status.getCode() == Status.Code.UNAVAILABLE) {
        out.error(
            "the stream of changes ended (UNAVAILABLE: "
                + description(status)
                + "); "
                + howToContinue(last));
        return REFUSED;
      }
      if (received) {
        throw status
            .withDescription(description(status) + "; " + howToContinue(last))
            .asRuntimeException();
      }
      throw e;
    }
  }

  private static String description(Status status) {
    if (status.getDescription() != null) {
      return status.getDescription();
    }
    return status.getCause() == null ? "no detail" : Causes.rootMessage(status.getCause());
  }

  private static String howToContinue(String lastToken) {
    return lastToken.isEmpty()
        ? "to watch from the first change again, rerun the command"
        : "to continue after the last change printed, rerun with --resume-token " + lastToken;
  }

  /**
   * One event for people: its time, kind, the record's id, title, status and version, the client
   * that made the change, and the resume token last, as {@code key=value} pairs (text in quotes).
   */
  static String line(DeductionEvent e) {
    DeductionStruct d = e.getDeduction();
    return Output.time(e.getAtMs())
        + " "
        + DeductionRpc.kindName(e.getKind())
        + " id="
        + Integer.toUnsignedString(d.getId())
        + " title="
        + quoted(d.getTitle())
        + " status="
        + DeductionRpc.statusName(d.getStatus())
        + " version="
        + Long.toUnsignedString(d.getVersion())
        + " actor="
        + quoted(e.getActor())
        + " resume-token="
        + Table.printable(e.getResumeToken());
  }

  /** {@code text} {@linkplain Table#printable printable}, in double quotes (inner ones escaped). */
  private static String quoted(String text) {
    return '"' + Table.printable(text).replace("\"", "\\\"") + '"';
  }
}

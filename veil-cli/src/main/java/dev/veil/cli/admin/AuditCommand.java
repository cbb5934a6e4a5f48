package dev.veil.cli.admin;

import dev.veil.grpc.identity.admin.v1.AuditEvent;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import dev.veil.grpc.identity.admin.v1.ListAuditEventsRequest;
import dev.veil.grpc.identity.admin.v1.ListAuditEventsResponse;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code veil admin audit}: the audit trail, newest first (needs AUDIT_READER). */
@Command(
    name = "audit",
    description =
        "List the audit trail, newest first: every change made through the admin API, who made it"
            + " and why.")
public final class AuditCommand extends AdminRpc {
  /** The server's largest page. */
  private static final int PAGE = 1000;

  @Option(names = "--actor", paramLabel = "CLIENT_ID", description = "Only changes by this client.")
  long actor;

  @Option(
      names = "--action",
      paramLabel = "NAME",
      description = "Only this admin method, e.g. CreateClient or RotateSalts.")
  String action;

  @Option(
      names = "--target",
      paramLabel = "TARGET",
      description = "Only changes to this target, as listed, e.g. \"client 12\".")
  String target;

  @Option(
      names = "--since",
      paramLabel = "TIME",
      description = "Only changes at or after this UTC time (2026-11-28 or 2026-11-28T09:30:00Z).")
  String since;

  @Option(
      names = "--until",
      paramLabel = "TIME",
      description = "Only changes before this UTC time (same forms as --since).")
  String until;

  @Option(
      names = "--limit",
      paramLabel = "N",
      description = "At most N records (default 50; 0 for all).")
  int limit = 50;

  @Override
  protected void execute(IdentityAdminApiBlockingStub api, Output out) {
    if (limit < 0) {
      throw new ParameterException(spec.commandLine(), "--limit must be 0 or more.");
    }
    ListAuditEventsRequest.Builder request =
        ListAuditEventsRequest.newBuilder()
            .setActorClientId(actor)
            .setAction(action == null ? "" : action)
            .setTarget(target == null ? "" : target)
            .setFromMs(millis("--since", since))
            .setUntilMs(millis("--until", until));
    ListAuditEventsResponse.Builder all = ListAuditEventsResponse.newBuilder();
    String token = "";
    do {
      int want = limit == 0 ? PAGE : Math.min(PAGE, limit - all.getEventsCount());
      ListAuditEventsResponse page =
          api.listAuditEvents(request.setPageSize(want).setPageToken(token).build());
      all.addAllEvents(page.getEventsList());
      token = page.getNextPageToken();
    } while (!token.isEmpty() && (limit == 0 || all.getEventsCount() < limit));
    all.setNextPageToken(token);
    ListAuditEventsResponse listed = all.build();
    out.print(
        listed,
        w -> {
          Table table = new Table("ID", "TIME", "ACTOR", "ACTION", "TARGET", "DETAILS", "REASON");
          for (AuditEvent e : listed.getEventsList()) {
            table.row(
                e.getId(),
                Output.time(e.getAtMs()),
                e.getActorClientId() + " " + e.getActorName(),
                e.getAction(),
                e.getTarget(),
                e.getDetailsJson(),
                e.getReason());
          }
          table.print(w);
          if (!listed.getNextPageToken().isEmpty()) {
            w.println("(more: raise --limit, or narrow with --since/--until)");
          }
        });
  }

  private long millis(String option, String value) {
    if (value == null || value.isBlank()) {
      return 0;
    }
    try {
      return UtcTime.millis(value);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), option + " must be " + UtcTime.FORMS + ": " + value.strip());
    }
  }
}

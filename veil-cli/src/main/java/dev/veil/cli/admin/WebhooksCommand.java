package dev.veil.cli.admin;

import dev.veil.grpc.identity.admin.v1.DeleteWebhookRequest;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import dev.veil.grpc.identity.admin.v1.ListWebhooksRequest;
import dev.veil.grpc.identity.admin.v1.ListWebhooksResponse;
import dev.veil.grpc.identity.admin.v1.RegisterWebhookRequest;
import dev.veil.grpc.identity.admin.v1.RegisterWebhookResponse;
import dev.veil.grpc.identity.admin.v1.Webhook;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code veil admin webhooks ...}: opt-out webhooks of bidders (docs/spec.md 4.1). */
@Command(
    name = "webhooks",
    description = "Register, list and delete the webhooks that receive every opt-out.",
    subcommands = {
      WebhooksCommand.Register.class,
      WebhooksCommand.ListAll.class,
      WebhooksCommand.Delete.class
    })
public final class WebhooksCommand extends CommandGroup {
  private static final String SECRET_WARNING =
      "give this secret to the receiver now: it is shown only once and cannot be recovered";

  @Command(
      name = "register",
      description =
          "Register a webhook for a client and print its signing secret (shown once). It receives"
              + " every opt-out recorded from now on.")
  static final class Register extends AdminRpc {
    @Option(names = "--client-id", required = true, description = "The client it belongs to.")
    long clientId;

    @Option(
        names = "--url",
        required = true,
        description =
            "http or https URL; may place %%identity%% and %%timestamp%% in its query (quote it).")
    String url;

    @Option(names = "--secret-only", description = "Print only the secret, for a script.")
    boolean secretOnly;

    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      RegisterWebhookResponse created =
          api.registerWebhook(
              RegisterWebhookRequest.newBuilder().setClientId(clientId).setUrl(url).build());
      if (secretOnly) {
        out.line(created.getSecret());
      } else {
        out.print(
            created,
            w -> {
              table(List.of(created.getWebhook())).print(w);
              w.println();
              w.println("Secret: " + created.getSecret());
            });
      }
      out.warn(SECRET_WARNING);
    }
  }

  @Command(name = "list", description = "List every webhook (never its secret).")
  static final class ListAll extends AdminRpc {
    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      ListWebhooksResponse hooks = api.listWebhooks(ListWebhooksRequest.getDefaultInstance());
      out.print(hooks, w -> table(hooks.getWebhooksList()).print(w));
    }
  }

  @Command(name = "delete", description = "Delete a webhook: nothing more is sent to it.")
  static final class Delete extends AdminRpc {
    @Parameters(paramLabel = "ID", description = "Webhook id.")
    long id;

    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      var deleted = api.deleteWebhook(DeleteWebhookRequest.newBuilder().setWebhookId(id).build());
      out.print(deleted, w -> w.println("Webhook " + id + " deleted."));
    }
  }

  private static Table table(List<Webhook> hooks) {
    Table table = new Table("ID", "CLIENT", "CREATED", "URL");
    for (Webhook h : hooks) {
      table.row(h.getId(), h.getClientId(), Output.time(h.getCreatedMs()), h.getUrl());
    }
    return table;
  }
}

package dev.veil.cli.admin;

import dev.veil.grpc.identity.admin.v1.Client;
import dev.veil.grpc.identity.admin.v1.CreateClientRequest;
import dev.veil.grpc.identity.admin.v1.CreateClientResponse;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import dev.veil.grpc.identity.admin.v1.ListClientsRequest;
import dev.veil.grpc.identity.admin.v1.ListClientsResponse;
import dev.veil.grpc.identity.admin.v1.RotateClientKeyRequest;
import dev.veil.grpc.identity.admin.v1.RotateClientKeyResponse;
import dev.veil.grpc.identity.admin.v1.RotateClientSecretRequest;
import dev.veil.grpc.identity.admin.v1.RotateClientSecretResponse;
import dev.veil.grpc.identity.admin.v1.SetClientEnabledRequest;
import dev.veil.grpc.identity.admin.v1.SetClientEnabledResponse;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code veil admin client ...}: API clients, their keys and their secrets. */
@Command(
    name = "client",
    description = "Manage API clients, their keys and their secrets.",
    subcommands = {
      ClientCommand.Create.class,
      ClientCommand.ListAll.class,
      ClientCommand.Disable.class,
      ClientCommand.Enable.class,
      ClientCommand.RotateKey.class,
      ClientCommand.RotateSecret.class
    })
public final class ClientCommand extends CommandGroup {
  private static final String KEY_WARNING =
      "store this API key now: it is shown only once and cannot be recovered";
  private static final String KEY_AND_SECRET_WARNING =
      "store this API key and secret now: they are shown only once and cannot be recovered";
  private static final String SECRET_WARNING =
      "store this secret now: it is shown only once and cannot be recovered";

  @Command(
      name = "create",
      description =
          "Create a client and print its API key and secret (shown once; the secret is for"
              + " UID2 v2 clients).")
  static final class Create extends AdminRpc {
    @Option(
        names = "--name",
        required = true,
        description = "Client name (1 to 128 characters, not blank).")
    String name;

    @Option(
        names = "--roles",
        required = true,
        split = ",",
        paramLabel = "ROLE",
        description =
            "Roles, comma-separated. API: GENERATOR, MAPPER, OPTOUT, ID_READER, SHARER."
                + " Operator: ADMIN (all of: CLIENT_ADMIN, KEY_ADMIN, OPTOUT_ADMIN,"
                + " SHARING_ADMIN, DEDUCTION_READER, DEDUCTION_WRITER, AUDIT_READER).")
    List<String> roles;

    @Option(
        names = "--site-id",
        defaultValue = "0",
        paramLabel = "N",
        description =
            "Site id (default: 0, a site id of its own: the client id, or the next free one"
                + " if another client has that).")
    int siteId;

    @Option(
        names = "--key-only",
        description = "Print only the API key, for a script: KEY=$(veil admin client create ...).")
    boolean keyOnly;

    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      CreateClientResponse created =
          api.createClient(
              CreateClientRequest.newBuilder()
                  .setName(name)
                  .setSiteId(siteId)
                  .addAllRoles(roles)
                  .build());
      if (keyOnly) {
        out.line(created.getApiKey());
        out.warn(KEY_WARNING);
      } else {
        out.print(
            created,
            w -> {
              printWithKey(w, created.getClient(), created.getApiKey());
              w.println("Secret:  " + created.getSecret());
            });
        out.warn(KEY_AND_SECRET_WARNING);
      }
    }
  }

  @Command(name = "list", description = "List every client.")
  static final class ListAll extends AdminRpc {
    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      ListClientsResponse list = api.listClients(ListClientsRequest.getDefaultInstance());
      out.print(list, w -> table(list.getClientsList()).print(w));
    }
  }

  @Command(name = "disable", description = "Disable a client: its key is refused at once.")
  static final class Disable extends AdminRpc {
    @Parameters(paramLabel = "ID", description = "Client id.")
    long id;

    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      setEnabled(api, out, id, false);
    }
  }

  @Command(name = "enable", description = "Enable a client again.")
  static final class Enable extends AdminRpc {
    @Parameters(paramLabel = "ID", description = "Client id.")
    long id;

    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      setEnabled(api, out, id, true);
    }
  }

  @Command(
      name = "rotate-key",
      description = "Give a client a new API key (shown once); the old key stops working.")
  static final class RotateKey extends AdminRpc {
    @Parameters(paramLabel = "ID", description = "Client id.")
    long id;

    @Option(names = "--key-only", description = "Print only the new API key, for a script.")
    boolean keyOnly;

    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      RotateClientKeyResponse rotated =
          api.rotateClientKey(RotateClientKeyRequest.newBuilder().setClientId(id).build());
      printCreated(out, rotated, rotated.getClient(), rotated.getApiKey(), keyOnly);
    }
  }

  @Command(
      name = "rotate-secret",
      description =
          "Give a client a new secret (shown once); requests sealed with the old one are refused."
              + " The API key does not change.")
  static final class RotateSecret extends AdminRpc {
    @Parameters(paramLabel = "ID", description = "Client id.")
    long id;

    @Option(names = "--secret-only", description = "Print only the new secret, for a script.")
    boolean secretOnly;

    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      RotateClientSecretResponse rotated =
          api.rotateClientSecret(RotateClientSecretRequest.newBuilder().setClientId(id).build());
      if (secretOnly) {
        out.line(rotated.getSecret());
      } else {
        out.print(
            rotated,
            w -> {
              table(List.of(rotated.getClient())).print(w);
              w.println();
              w.println("Secret: " + rotated.getSecret());
            });
      }
      out.warn(SECRET_WARNING);
    }
  }

  private static void setEnabled(
      IdentityAdminApiBlockingStub api, Output out, long id, boolean enabled) {
    SetClientEnabledResponse changed =
        api.setClientEnabled(
            SetClientEnabledRequest.newBuilder().setClientId(id).setEnabled(enabled).build());
    out.print(changed, w -> table(List.of(changed.getClient())).print(w));
  }

  /**
   * The answer of a call that made a key: the client and its key, or ({@code --key-only}) the key
   * alone on stdout, so that a script can capture it; the warning goes to stderr either way.
   */
  private static void printCreated(
      Output out,
      com.google.protobuf.MessageOrBuilder response,
      Client client,
      String apiKey,
      boolean keyOnly) {
    if (keyOnly) {
      out.line(apiKey);
    } else {
      out.print(response, w -> printWithKey(w, client, apiKey));
    }
    out.warn(KEY_WARNING);
  }

  private static void printWithKey(PrintWriter w, Client client, String apiKey) {
    table(List.of(client)).print(w);
    w.println();
    w.println("API key: " + apiKey);
  }

  private static Table table(List<Client> clients) {
    Table table = new Table("ID", "NAME", "SITE", "ROLES", "ENABLED", "CREATED", "KEY ID");
    for (Client c : clients) {
      table.row(
          c.getId(),
          c.getName(),
          c.getSiteId(),
          String.join(",", c.getRolesList()),
          c.getEnabled() ? "yes" : "no",
          Output.time(c.getCreatedMs()),
          c.getKeyId());
    }
    return table;
  }
}

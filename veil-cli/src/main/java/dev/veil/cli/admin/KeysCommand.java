package dev.veil.cli.admin;

import dev.veil.grpc.identity.admin.v1.EncryptionKeyInfo;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import dev.veil.grpc.identity.admin.v1.ListKeysRequest;
import dev.veil.grpc.identity.admin.v1.ListKeysResponse;
import dev.veil.grpc.identity.admin.v1.RotateKeysRequest;
import dev.veil.grpc.identity.admin.v1.RotateKeysResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code veil admin keys ...}: encryption key metadata and rotation. */
@Command(
    name = "keys",
    description = "List or rotate encryption keys (metadata only).",
    subcommands = {KeysCommand.ListAll.class, KeysCommand.Rotate.class})
public final class KeysCommand extends CommandGroup {

  @Command(name = "list", description = "List every encryption key: keyset, state and times.")
  static final class ListAll extends AdminRpc {
    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      ListKeysResponse keys = api.listKeys(ListKeysRequest.getDefaultInstance());
      out.print(keys, w -> table(keys.getKeysList()).print(w));
    }
  }

  @Command(name = "rotate", description = "Create a new key now for some keysets (default: all).")
  static final class Rotate extends AdminRpc {
    @Option(
        names = "--site-id",
        split = ",",
        paramLabel = "N",
        description =
            "Keyset to rotate: -1 master, -2 refresh, or a site id (repeatable; default: all).")
    List<Integer> siteIds = new ArrayList<>();

    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      RotateKeysResponse rotated =
          api.rotateKeys(RotateKeysRequest.newBuilder().addAllSiteIds(siteIds).build());
      out.print(
          rotated,
          w -> {
            w.println("Created " + rotated.getCreatedCount() + " key(s):");
            table(rotated.getCreatedList()).print(w);
          });
    }
  }

  private static Table table(List<EncryptionKeyInfo> keys) {
    Table table = new Table("ID", "KEYSET", "STATE", "CREATED", "ACTIVATES", "EXPIRES");
    for (EncryptionKeyInfo k : keys) {
      table.row(
          k.getId(),
          keyset(k.getSiteId()),
          state(k),
          Output.time(k.getCreatedMs()),
          Output.time(k.getActivatesMs()),
          Output.time(k.getExpiresMs()));
    }
    return table;
  }

  private static String keyset(int siteId) {
    return switch (siteId) {
      case -1 -> "master";
      case -2 -> "refresh";
      default -> "site " + siteId;
    };
  }

  private static String state(EncryptionKeyInfo key) {
    return key.getState().name().replace("KEY_STATE_", "").toLowerCase(Locale.ROOT);
  }
}

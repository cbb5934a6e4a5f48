package dev.veil.cli.admin;

import dev.veil.grpc.identity.admin.v1.Identity;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import dev.veil.grpc.identity.admin.v1.LookupOptOutRequest;
import dev.veil.grpc.identity.admin.v1.LookupOptOutResponse;
import dev.veil.grpc.identity.admin.v1.RecordOptOutRequest;
import dev.veil.grpc.identity.admin.v1.RecordOptOutResponse;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code veil admin optout ...}: record or look up the opt-out of one identity. */
@Command(
    name = "optout",
    description = "Record or look up the opt-out of one identity.",
    subcommands = {OptOutCommand.RecordOptOut.class, OptOutCommand.LookupOptOut.class})
public final class OptOutCommand extends CommandGroup {

  /** Exactly one identity, in one of its four forms. */
  static final class IdentityArgs {
    @Option(names = "--email", paramLabel = "ADDRESS", description = "Email address.")
    String email;

    @Option(
        names = "--email-hash",
        paramLabel = "HASH",
        description = "SHA-256 of the normalized email (base64 or hex).")
    String emailHash;

    @Option(
        names = "--phone",
        paramLabel = "E164",
        description = "Phone number, E.164 (+ and 10 to 15 digits).")
    String phone;

    @Option(
        names = "--phone-hash",
        paramLabel = "HASH",
        description = "SHA-256 of the normalized phone (base64 or hex).")
    String phoneHash;

    Identity toMessage() {
      Identity.Builder identity = Identity.newBuilder();
      if (email != null) {
        identity.setEmail(email);
      } else if (emailHash != null) {
        identity.setEmailHash(emailHash);
      } else if (phone != null) {
        identity.setPhone(phone);
      } else {
        identity.setPhoneHash(phoneHash);
      }
      return identity.build();
    }
  }

  @Command(name = "record", description = "Record that an identity opted out (idempotent).")
  static final class RecordOptOut extends AdminRpc {
    @ArgGroup(exclusive = true, multiplicity = "1")
    IdentityArgs identity;

    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      RecordOptOutResponse recorded =
          api.recordOptOut(
              RecordOptOutRequest.newBuilder().setIdentity(identity.toMessage()).build());
      out.print(
          recorded, w -> w.println("Opted out at " + Output.time(recorded.getOptedOutMs()) + "."));
    }
  }

  @Command(name = "lookup", description = "Show whether an identity opted out, and when.")
  static final class LookupOptOut extends AdminRpc {
    @ArgGroup(exclusive = true, multiplicity = "1")
    IdentityArgs identity;

    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      LookupOptOutResponse found =
          api.lookupOptOut(
              LookupOptOutRequest.newBuilder().setIdentity(identity.toMessage()).build());
      out.print(
          found,
          w ->
              w.println(
                  found.getOptedOut()
                      ? "Opted out at " + Output.time(found.getOptedOutMs()) + "."
                      : "Not opted out."));
    }
  }
}

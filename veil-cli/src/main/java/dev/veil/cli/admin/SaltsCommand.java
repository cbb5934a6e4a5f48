package dev.veil.cli.admin;

import dev.veil.grpc.identity.admin.v1.BucketIdList;
import dev.veil.grpc.identity.admin.v1.GetSaltStatusRequest;
import dev.veil.grpc.identity.admin.v1.GetSaltStatusResponse;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import dev.veil.grpc.identity.admin.v1.RotateSaltsRequest;
import dev.veil.grpc.identity.admin.v1.RotateSaltsResponse;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code veil admin salts ...}: salt rotation now, and its status. */
@Command(
    name = "salts",
    description = "Rotate bucket salts now or show the rotation status.",
    subcommands = {SaltsCommand.Rotate.class, SaltsCommand.Status.class})
public final class SaltsCommand extends CommandGroup {

  @Command(
      name = "rotate",
      description = "Give buckets a new salt now: a fraction (oldest first) or a list.")
  static final class Rotate extends AdminRpc {
    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    static final class Target {
      @Option(
          names = "--fraction",
          paramLabel = "F",
          description = "Fraction of all buckets, 0 < F <= 1.")
      Double fraction;

      @Option(
          names = "--bucket",
          split = ",",
          paramLabel = "ID",
          description = "Bucket id to rotate (repeatable, or comma-separated).")
      List<String> buckets;
    }

    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      RotateSaltsRequest.Builder request = RotateSaltsRequest.newBuilder();
      if (target.fraction != null) {
        request.setFraction(target.fraction);
      } else {
        request.setBuckets(BucketIdList.newBuilder().addAllBucketIds(target.buckets));
      }
      RotateSaltsResponse rotated = api.rotateSalts(request.build());
      out.print(rotated, w -> w.println("Rotated " + rotated.getRotatedBuckets() + " bucket(s)."));
    }
  }

  @Command(name = "status", description = "Show bucket count, rotated buckets and the oldest salt.")
  static final class Status extends AdminRpc {
    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      GetSaltStatusResponse status = api.getSaltStatus(GetSaltStatusRequest.getDefaultInstance());
      out.print(
          status,
          w -> {
            w.printf("buckets              %d%n", status.getBucketCount());
            w.printf("rotated buckets      %d%n", status.getRotatedBuckets());
            w.printf("oldest salt since    %s%n", Output.time(status.getOldestSaltMs()));
            w.printf(
                "last daily rotation  %s%n",
                status.getLastDailyRotationDay().isEmpty()
                    ? "never"
                    : status.getLastDailyRotationDay());
          });
    }
  }
}

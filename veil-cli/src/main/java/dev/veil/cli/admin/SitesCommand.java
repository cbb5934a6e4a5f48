package dev.veil.cli.admin;

import dev.veil.grpc.identity.admin.v1.DomainNames;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import dev.veil.grpc.identity.admin.v1.ListSitesRequest;
import dev.veil.grpc.identity.admin.v1.ListSitesResponse;
import dev.veil.grpc.identity.admin.v1.ParticipantTypes;
import dev.veil.grpc.identity.admin.v1.SetSiteSharingRequest;
import dev.veil.grpc.identity.admin.v1.Site;
import dev.veil.grpc.identity.admin.v1.UpdateSiteRequest;
import java.io.PrintWriter;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code veil admin sites ...}: sites' domain names, types and sharing permissions. */
@Command(
    name = "sites",
    description = "List sites, set their domain names and types, and who may read their tokens.",
    subcommands = {SitesCommand.ListAll.class, SitesCommand.Set.class, SitesCommand.Share.class})
public final class SitesCommand extends CommandGroup {

  @Command(name = "list", description = "List every site with settings.")
  static final class ListAll extends AdminRpc {
    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      ListSitesResponse sites = api.listSites(ListSitesRequest.getDefaultInstance());
      out.print(sites, w -> table(sites.getSitesList()).print(w));
    }
  }

  @Command(
      name = "set",
      description = "Set a site's domain and app names and/or its participant types.")
  static final class Set extends AdminRpc {
    @Parameters(index = "0", paramLabel = "SITE_ID", description = "The site (positive).")
    int siteId;

    @Option(
        names = "--domains",
        split = ",",
        arity = "0..*",
        paramLabel = "NAME",
        description =
            "Domain or app names, comma-separated (example.com,com.example.app); replaces the"
                + " site's names. --domains with no value clears them.")
    List<String> domains;

    @Option(
        names = "--types",
        split = ",",
        arity = "0..*",
        paramLabel = "TYPE",
        description =
            "Participant types, comma-separated: PUBLISHER, ADVERTISER, DSP, DATA_PROVIDER;"
                + " replaces the site's types. --types with no value clears them.")
    List<String> types;

    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      UpdateSiteRequest.Builder request = UpdateSiteRequest.newBuilder().setSiteId(siteId);
      if (domains != null) {
        request.setDomainNames(DomainNames.newBuilder().addAllNames(domains));
      }
      if (types != null) {
        request.setTypes(ParticipantTypes.newBuilder().addAllTypes(types));
      }
      var updated = api.updateSite(request.build());
      out.print(updated, w -> describe(w, updated.getSite()));
    }
  }

  @Command(
      name = "share",
      description =
          "Set which sites and participant types may decrypt tokens made under a site's keyset.")
  static final class Share extends AdminRpc {
    @Parameters(index = "0", paramLabel = "SITE_ID", description = "The site (positive).")
    int siteId;

    @ArgGroup(multiplicity = "1")
    Permission permission;

    static final class Permission {
      @ArgGroup(exclusive = false)
      Listed listed;

      @Option(
          names = "--default",
          required = true,
          description =
              "Return to the default: every bidder (ID_READER) may decrypt, other sharers may not.")
      boolean reset;
    }

    static final class Listed {
      @Option(
          names = "--sites",
          split = ",",
          arity = "0..*",
          paramLabel = "SITE_ID",
          description = "Sites that may decrypt, comma-separated (with no value: none).")
      List<Integer> sites = List.of();

      @Option(
          names = "--types",
          split = ",",
          arity = "0..*",
          paramLabel = "TYPE",
          description =
              "Participant types whose sites may decrypt: PUBLISHER, ADVERTISER, DSP,"
                  + " DATA_PROVIDER.")
      List<String> types = List.of();
    }

    @Override
    protected void execute(IdentityAdminApiBlockingStub api, Output out) {
      SetSiteSharingRequest.Builder request = SetSiteSharingRequest.newBuilder().setSiteId(siteId);
      if (permission.reset) {
        request.setResetToDefault(true);
      } else {
        request.addAllAllowedSites(permission.listed.sites);
        request.addAllAllowedTypes(permission.listed.types);
      }
      var updated = api.setSiteSharing(request.build());
      out.print(updated, w -> describe(w, updated.getSite()));
    }
  }

  private static void describe(PrintWriter w, Site site) {
    w.println("Site " + site.getSiteId());
    w.println("Domains: " + list(site.getDomainNamesList()));
    w.println("Types:   " + list(site.getTypesList()));
    w.println("Sharing: " + sharing(site));
  }

  private static Table table(List<Site> sites) {
    Table table = new Table("SITE", "DOMAINS", "TYPES", "SHARING", "UPDATED");
    for (Site s : sites) {
      table.row(
          s.getSiteId(),
          list(s.getDomainNamesList()),
          list(s.getTypesList()),
          sharing(s),
          Output.time(s.getUpdatedMs()));
    }
    return table;
  }

  private static String sharing(Site site) {
    if (!site.getSharingSet()) {
      return "default (bidders)";
    }
    if (site.getAllowedSitesCount() == 0 && site.getAllowedTypesCount() == 0) {
      return "none";
    }
    String sites =
        site.getAllowedSitesList().stream().map(String::valueOf).collect(Collectors.joining(","));
    String types = String.join(",", site.getAllowedTypesList());
    return (sites.isEmpty() ? "" : "sites " + sites)
        + (sites.isEmpty() || types.isEmpty() ? "" : "; ")
        + (types.isEmpty() ? "" : "types " + types);
  }

  private static String list(List<String> values) {
    return values.isEmpty() ? "-" : String.join(",", values);
  }
}

package dev.veil.grpc;

import dev.veil.common.VeilException;
import dev.veil.grpc.identity.admin.v1.SetSiteSharingRequest;
import dev.veil.site.ParticipantType;
import dev.veil.site.Sharing;
import dev.veil.site.Site;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Translates between the admin API's site messages and {@link Site}; checks only their shape. */
final class SiteMessages {
  private SiteMessages() {}

  static dev.veil.grpc.identity.admin.v1.Site site(Site s) {
    var b =
        dev.veil.grpc.identity.admin.v1.Site.newBuilder()
            .setSiteId(s.siteId())
            .addAllDomainNames(s.domainNames())
            .addAllTypes(names(s.types()))
            .setSharingSet(s.sharing().isPresent())
            .setUpdatedMs(s.updated().toEpochMilli());
    s.sharing()
        .ifPresent(
            sharing ->
                b.addAllAllowedSites(sharing.allowedSites().stream().sorted().toList())
                    .addAllAllowedTypes(names(sharing.allowedTypes())));
    return b.build();
  }

  /** The permission a request sets: empty for a reset to the default. */
  static Optional<Sharing> sharing(SetSiteSharingRequest request) {
    if (request.getResetToDefault()) {
      if (request.getAllowedSitesCount() > 0 || request.getAllowedTypesCount() > 0) {
        throw VeilException.clientError(
            "reset_to_default takes no allowed_sites and no allowed_types");
      }
      return Optional.empty();
    }
    return Optional.of(
        new Sharing(
            new HashSet<>(request.getAllowedSitesList()), types(request.getAllowedTypesList())));
  }

  /**
   * Participant types by name, case-insensitively.
   *
   * @throws VeilException CLIENT_ERROR naming an unknown type and the accepted ones
   */
  static Set<ParticipantType> types(Collection<String> names) {
    try {
      return ParticipantType.parseAll(names);
    } catch (IllegalArgumentException e) {
      throw VeilException.clientError(e.getMessage());
    }
  }

  private static List<String> names(Set<ParticipantType> types) {
    return types.isEmpty() ? List.of() : EnumSet.copyOf(types).stream().map(Enum::name).toList();
  }
}

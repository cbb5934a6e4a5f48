package dev.veil.storage;

import dev.veil.common.ChangeCursor;
import dev.veil.common.Versioned;
import dev.veil.site.ParticipantType;
import dev.veil.site.Sharing;
import dev.veil.site.Site;
import dev.veil.site.SiteStore;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SiteStore} on table {@code site}: one row per site, replaced whole by every write (with a
 * new seq). Lists are comma-separated (names never contain a comma); a participant type this build
 * does not know is skipped when reading, so an older node allows less, never more.
 */
final class JdbcSiteStore implements SiteStore {
  private static final Logger log = LoggerFactory.getLogger(JdbcSiteStore.class);

  private static final String COLUMNS =
      "site_id, domain_names, types, sharing_set, allowed_sites, allowed_types, updated_ms";
  static final ChangeTable<Site> TABLE =
      new ChangeTable<>("site", COLUMNS, JdbcSiteStore::site, 1_000);
  private static final String UPSERT =
      "INSERT INTO site ("
          + COLUMNS
          + ", seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (site_id) DO UPDATE SET domain_names = excluded.domain_names,"
          + " types = excluded.types, sharing_set = excluded.sharing_set,"
          + " allowed_sites = excluded.allowed_sites, allowed_types = excluded.allowed_types,"
          + " updated_ms = excluded.updated_ms, seq = excluded.seq";

  private final Database db;

  JdbcSiteStore(Database db) {
    this.db = db;
  }

  @Override
  public ChangeCursor forEachChange(ChangeCursor since, Consumer<Versioned<Site>> sink) {
    return db.readChanges("read sites", TABLE, since, sink);
  }

  @Override
  public Versioned<Site> put(Site site) {
    Site stored =
        new Site(
            site.siteId(),
            site.domainNames(),
            site.types(),
            site.sharing(),
            Instant.ofEpochMilli(site.updated().toEpochMilli()));
    return db.write(
        "write site",
        c -> {
          long seq = db.nextSeq(c);
          try (PreparedStatement ps = c.prepareStatement(UPSERT)) {
            ps.setInt(1, stored.siteId());
            ps.setString(2, String.join(",", stored.domainNames()));
            ps.setString(3, types(stored.types()));
            ps.setBoolean(4, stored.sharing().isPresent());
            ps.setString(5, stored.sharing().map(s -> sites(s.allowedSites())).orElse(""));
            ps.setString(6, stored.sharing().map(s -> types(s.allowedTypes())).orElse(""));
            ps.setLong(7, stored.updated().toEpochMilli());
            ps.setLong(8, seq);
            ps.executeUpdate();
          }
          return new Versioned<>(seq, stored);
        });
  }

  private static Site site(ResultSet rs) throws SQLException {
    Optional<Sharing> sharing =
        rs.getBoolean(4)
            ? Optional.of(new Sharing(sites(rs.getString(5)), types(rs.getString(6))))
            : Optional.empty();
    return new Site(
        rs.getInt(1),
        names(rs.getString(2)),
        types(rs.getString(3)),
        sharing,
        Instant.ofEpochMilli(rs.getLong(7)));
  }

  private static List<String> names(String text) {
    return text.isEmpty() ? List.of() : List.of(text.split(","));
  }

  private static String sites(Set<Integer> sites) {
    return sites.stream().sorted().map(String::valueOf).collect(Collectors.joining(","));
  }

  private static Set<Integer> sites(String text) {
    return text.isEmpty()
        ? Set.of()
        : Arrays.stream(text.split(",")).map(Integer::valueOf).collect(Collectors.toSet());
  }

  private static String types(Set<ParticipantType> types) {
    return types.isEmpty()
        ? ""
        : EnumSet.copyOf(types).stream().map(Enum::name).collect(Collectors.joining(","));
  }

  private static Set<ParticipantType> types(String text) {
    Set<ParticipantType> types = EnumSet.noneOf(ParticipantType.class);
    for (String name : text.split(",")) {
      if (name.isBlank()) {
        continue;
      }
      try {
        types.add(ParticipantType.valueOf(name.strip()));
      } catch (IllegalArgumentException unknown) {
        log.warn("event=unknown_participant_type_ignored type={}", name.strip());
      }
    }
    return types;
  }
}

package dev.veil.storage;

import dev.veil.client.ApiClient;
import dev.veil.client.ApiKeyDigest;
import dev.veil.client.ClientStore;
import dev.veil.client.Role;
import dev.veil.common.ChangeCursor;
import dev.veil.common.Versioned;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ClientStore} on table {@code api_client}. Roles are stored as comma-separated enum names
 * in declaration order ({@code GENERATOR,MAPPER}); a name this build does not know is skipped when
 * reading, so an older node grants less, never more. Every insert and update gives the row a new
 * seq.
 */
final class JdbcClientStore implements ClientStore {
  private static final Logger log = LoggerFactory.getLogger(JdbcClientStore.class);

  private static final String COLUMNS =
      "id, name, site_id, roles, enabled, created_ms, key_id, key_salt, key_hash";
  static final ChangeTable<ApiClient> TABLE =
      new ChangeTable<>("api_client", COLUMNS, JdbcClientStore::client, 1_000);
  private static final String INSERT =
      "INSERT INTO api_client"
          + " (name, site_id, roles, enabled, created_ms, key_id, key_salt, key_hash, seq)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id";
  private static final String SITE_ID_FROM_ID = "UPDATE api_client SET site_id = id WHERE id = ?";
  private static final String UPDATE =
      "UPDATE api_client SET name = ?, site_id = ?, roles = ?, enabled = ?, created_ms = ?,"
          + " key_id = ?, key_salt = ?, key_hash = ?, seq = ? WHERE id = ?";

  private final Database db;

  JdbcClientStore(Database db) {
    this.db = db;
  }

  @Override
  public ChangeCursor forEachChange(ChangeCursor since, Consumer<Versioned<ApiClient>> sink) {
    return db.readChanges("read clients", TABLE, since, sink);
  }

  @Override
  public Versioned<ApiClient> insert(
      String name,
      int siteId,
      Set<Role> roles,
      boolean enabled,
      Instant created,
      ApiKeyDigest key) {
    ApiClient draft = new ApiClient(0, name, siteId, roles, enabled, millis(created), copy(key));
    return db.write(
        "insert client",
        c -> {
          long seq = db.nextSeq(c);
          long id;
          try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            bind(ps, draft, seq);
            id = returnedId(ps);
          }
          int storedSiteId = siteId;
          if (siteId == 0) {
            storedSiteId = Math.toIntExact(id);
            try (PreparedStatement ps = c.prepareStatement(SITE_ID_FROM_ID)) {
              ps.setLong(1, id);
              ps.executeUpdate();
            }
          }
          return new Versioned<>(
              seq,
              new ApiClient(
                  id,
                  draft.name(),
                  storedSiteId,
                  draft.roles(),
                  enabled,
                  draft.created(),
                  draft.key()));
        });
  }

  @Override
  public Optional<Versioned<ApiClient>> update(ApiClient client) {
    ApiClient stored =
        new ApiClient(
            client.id(),
            client.name(),
            client.siteId(),
            client.roles(),
            client.enabled(),
            millis(client.created()),
            copy(client.key()));
    return db.write(
        "update client",
        c -> {
          long seq = db.nextSeq(c);
          try (PreparedStatement ps = c.prepareStatement(UPDATE)) {
            bind(ps, stored, seq);
            ps.setLong(10, stored.id());
            return ps.executeUpdate() == 1
                ? Optional.of(new Versioned<>(seq, stored))
                : Optional.empty();
          }
        });
  }

  /** Binds the nine columns after {@code id}, in {@link #INSERT} order. */
  private static void bind(PreparedStatement ps, ApiClient client, long seq) throws SQLException {
    ps.setString(1, client.name());
    ps.setInt(2, client.siteId());
    ps.setString(3, encodeRoles(client.roles()));
    ps.setBoolean(4, client.enabled());
    ps.setLong(5, client.created().toEpochMilli());
    ps.setString(6, client.key().keyId());
    ps.setBytes(7, client.key().salt());
    ps.setBytes(8, client.key().hash());
    ps.setLong(9, seq);
  }

  private static ApiClient client(ResultSet rs) throws SQLException {
    ApiKeyDigest key = new ApiKeyDigest(rs.getString(7), rs.getBytes(8), rs.getBytes(9));
    return new ApiClient(
        rs.getLong(1),
        rs.getString(2),
        rs.getInt(3),
        decodeRoles(rs.getString(4)),
        rs.getBoolean(5),
        Instant.ofEpochMilli(rs.getLong(6)),
        key);
  }

  static String encodeRoles(Set<Role> roles) {
    return roles.isEmpty()
        ? ""
        : EnumSet.copyOf(roles).stream().map(Role::name).collect(Collectors.joining(","));
  }

  static Set<Role> decodeRoles(String text) {
    Set<Role> roles = EnumSet.noneOf(Role.class);
    for (String name : text.split(",")) {
      if (name.isBlank()) {
        continue;
      }
      try {
        roles.add(Role.valueOf(name.strip()));
      } catch (IllegalArgumentException unknown) {
        log.warn("event=unknown_role_ignored role={}", name.strip());
      }
    }
    return roles;
  }

  private static long returnedId(PreparedStatement insert) throws SQLException {
    try (ResultSet rs = insert.executeQuery()) {
      if (!rs.next()) {
        throw new SQLException("insert returned no id");
      }
      return rs.getLong(1);
    }
  }

  private static Instant millis(Instant t) {
    return Instant.ofEpochMilli(t.toEpochMilli());
  }

  private static ApiKeyDigest copy(ApiKeyDigest key) {
    return new ApiKeyDigest(key.keyId(), key.salt().clone(), key.hash().clone());
  }
}

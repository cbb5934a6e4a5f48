package dev.veil.storage;

import dev.veil.audit.AuditLog;
import dev.veil.client.ApiClient;
import dev.veil.client.ApiKeyDigest;
import dev.veil.client.ClientSecret;
import dev.veil.client.ClientStore;
import dev.veil.client.Role;
import dev.veil.common.ChangeCursor;
import dev.veil.common.Versioned;
import java.sql.Connection;
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
 * seq. An insert that asks for a site of its own (site id 0) locks the table against other writers
 * first, so that two nodes creating clients at once never pick the same site id.
 */
final class JdbcClientStore implements ClientStore {
  private static final Logger log = LoggerFactory.getLogger(JdbcClientStore.class);

  private static final String COLUMNS =
      "id, name, site_id, roles, enabled, created_ms, key_id, key_salt, key_hash, secret";
  static final ChangeTable<ApiClient> TABLE =
      new ChangeTable<>("api_client", COLUMNS, JdbcClientStore::client, 1_000);
  private static final String INSERT =
      "INSERT INTO api_client"
          + " (name, site_id, roles, enabled, created_ms, key_id, key_salt, key_hash, secret, seq)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id";

  /** Site ids from {@code ?} up that a client or a keyset has, ascending, each once. */
  private static final String SITE_IDS_IN_USE =
      "SELECT site_id FROM api_client WHERE site_id >= ?"
          + " UNION SELECT site_id FROM encryption_key WHERE site_id >= ? ORDER BY 1";

  private static final String SET_SITE_ID = "UPDATE api_client SET site_id = ? WHERE id = ?";
  private static final String UPDATE =
      "UPDATE api_client SET name = ?, site_id = ?, roles = ?, enabled = ?, created_ms = ?,"
          + " key_id = ?, key_salt = ?, key_hash = ?, secret = ?, seq = ? WHERE id = ?";

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
      ApiKeyDigest key,
      ClientSecret secret) {
    ApiClient draft =
        new ApiClient(0, name, siteId, roles, enabled, millis(created), copy(key), secret);
    return db.write(
        "insert client",
        c -> {
          if (siteId == 0) {
            db.lockAgainstWriters(c, "api_client");
          }
          long seq = db.nextSeq(c);
          long id;
          try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            bind(ps, draft, seq);
            id = returnedId(ps);
          }
          AuditLog.assignedId(id);
          int storedSiteId = siteId;
          if (siteId == 0) {
            storedSiteId = freeSiteId(c, id);
            try (PreparedStatement ps = c.prepareStatement(SET_SITE_ID)) {
              ps.setInt(1, storedSiteId);
              ps.setLong(2, id);
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
                  draft.key(),
                  draft.secret()));
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
            copy(client.key()),
            client.secret());
    return db.write(
        "update client",
        c -> {
          long seq = db.nextSeq(c);
          try (PreparedStatement ps = c.prepareStatement(UPDATE)) {
            bind(ps, stored, seq);
            ps.setLong(11, stored.id());
            if (ps.executeUpdate() == 1) {
              return Optional.of(new Versioned<>(seq, stored));
            }
            AuditLog.nothingChanged();
            return Optional.empty();
          }
        });
  }

  /**
   * The site id of a new client that asked for a site of its own: its client id {@code id} when no
   * client and no keyset has that site id yet, otherwise the next higher one that none has. A
   * keyset counts too, so that a client never inherits keys that another (perhaps deleted) client
   * was given. The caller holds the lock that keeps other writers of clients out, so the id stays
   * free until it commits; an explicit site id may still be shared later, on purpose.
   */
  private static int freeSiteId(Connection c, long id) throws SQLException {
    long candidate = id;
    try (PreparedStatement ps = c.prepareStatement(SITE_IDS_IN_USE)) {
      ps.setLong(1, id);
      ps.setLong(2, id);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next() && rs.getLong(1) <= candidate) {
          candidate = rs.getLong(1) + 1;
        }
      }
    }
    return Math.toIntExact(candidate);
  }

  /** Binds the ten columns after {@code id}, in {@link #INSERT} order. */
  private static void bind(PreparedStatement ps, ApiClient client, long seq) throws SQLException {
    ps.setString(1, client.name());
    ps.setInt(2, client.siteId());
    ps.setString(3, encodeRoles(client.roles()));
    ps.setBoolean(4, client.enabled());
    ps.setLong(5, client.created().toEpochMilli());
    ps.setString(6, client.key().keyId());
    ps.setBytes(7, client.key().salt());
    ps.setBytes(8, client.key().hash());
    ps.setBytes(9, client.secret() == null ? null : client.secret().bytes());
    ps.setLong(10, seq);
  }

  private static ApiClient client(ResultSet rs) throws SQLException {
    ApiKeyDigest key = new ApiKeyDigest(rs.getString(7), rs.getBytes(8), rs.getBytes(9));
    byte[] secret = rs.getBytes(10);
    return new ApiClient(
        rs.getLong(1),
        rs.getString(2),
        rs.getInt(3),
        decodeRoles(rs.getString(4)),
        rs.getBoolean(5),
        Instant.ofEpochMilli(rs.getLong(6)),
        key,
        secret == null ? null : ClientSecret.of(secret));
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

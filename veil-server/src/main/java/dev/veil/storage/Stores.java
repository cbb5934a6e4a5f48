package dev.veil.storage;

import dev.veil.common.StoreUnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens a {@link Store} from a URL and brings its schema up to date. */
public final class Stores {
  private static final Logger log = LoggerFactory.getLogger(Stores.class);

  private Stores() {}

  /** {@link #open(String, StoreSettings)} with {@link StoreSettings#defaults()}. */
  public static Store open(String url) {
    return open(url, StoreSettings.defaults());
  }

  /**
   * Opens the store at {@code url}, runs pending migrations, and returns it ready for use. The
   * caller owns the store and closes it.
   *
   * <p>URL forms:
   *
   * <ul>
   *   <li>{@code null} or empty: the embedded store {@code ./data/veil.db};
   *   <li>a file path, {@code sqlite:<path>}, {@code sqlite://<path>}, {@code jdbc:sqlite:<path>}:
   *       the embedded store in that file (its directory is created);
   *   <li>{@code postgresql://[user[:password]@]host[:port]/db[?param=value…]} (or {@code
   *       postgres://}) and {@code jdbc:postgresql://host[:port]/db[?param=value…]}: PostgreSQL;
   *       parameters are pgjdbc's, e.g. {@code currentSchema}, {@code sslmode}, {@code password}.
   * </ul>
   *
   * @throws IllegalArgumentException if the URL has an unsupported form
   * @throws StoreUnavailableException if the database cannot be opened or migrated; the message
   *     names the URL without its password
   */
  public static Store open(String url, StoreSettings settings) {
    StoreUrl location = StoreUrl.parse(url);
    Database db =
        location instanceof StoreUrl.Postgres postgres
            ? PostgresDatabase.open(postgres, settings)
            : SqliteDatabase.open((StoreUrl.Sqlite) location, settings);
    try {
      int version = Migrator.migrate(db);
      log.info("event=store_opened store={} schemaVersion={}", db.describe(), version);
      return new JdbcStore(db);
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
  }
}

package dev.veil.storage;

import dev.veil.audit.AuditStore;
import dev.veil.client.ClientStore;
import dev.veil.common.JobLock;
import dev.veil.common.MetaStore;
import dev.veil.deduction.DeductionStore;
import dev.veil.key.KeyStore;
import dev.veil.optout.OptOutStore;
import dev.veil.salt.SaltStore;
import dev.veil.site.SiteStore;
import dev.veil.webhook.WebhookStore;

/** The {@link Store} of either engine: the shared JDBC feature stores over one {@link Database}. */
final class JdbcStore implements Store {
  private final Database db;
  private final JdbcKeyStore keys;
  private final JdbcSaltStore salts;
  private final JdbcOptOutStore optOuts;
  private final JdbcClientStore clients;
  private final JdbcSiteStore sites;
  private final JdbcMetaStore meta;
  private final JdbcDeductionStore deductions;
  private final JdbcWebhookStore webhooks;
  private final JdbcAuditStore audit;

  JdbcStore(Database db) {
    this.db = db;
    this.keys = new JdbcKeyStore(db);
    this.salts = new JdbcSaltStore(db);
    this.optOuts = new JdbcOptOutStore(db);
    this.clients = new JdbcClientStore(db);
    this.sites = new JdbcSiteStore(db);
    this.meta = new JdbcMetaStore(db);
    this.deductions = new JdbcDeductionStore(db);
    this.webhooks = new JdbcWebhookStore(db);
    this.audit = new JdbcAuditStore(db);
  }

  @Override
  public AuditStore audit() {
    return audit;
  }

  @Override
  public KeyStore keys() {
    return keys;
  }

  @Override
  public SaltStore salts() {
    return salts;
  }

  @Override
  public OptOutStore optOuts() {
    return optOuts;
  }

  @Override
  public ClientStore clients() {
    return clients;
  }

  @Override
  public SiteStore sites() {
    return sites;
  }

  @Override
  public MetaStore meta() {
    return meta;
  }

  @Override
  public DeductionStore deductions() {
    return deductions;
  }

  @Override
  public WebhookStore webhooks() {
    return webhooks;
  }

  @Override
  public JobLock jobLock() {
    return db.jobLock();
  }

  @Override
  public String describe() {
    return db.describe();
  }

  @Override
  public boolean isReachable() {
    return db.isReachable();
  }

  @Override
  public void close() {
    db.close();
  }

  /** The engine underneath, for tests of engine settings. */
  Database database() {
    return db;
  }
}

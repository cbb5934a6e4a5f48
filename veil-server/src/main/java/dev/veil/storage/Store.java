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

/**
 * One database holding everything Veil persists. Opened by {@link Stores#open}, which runs the
 * numbered migrations first. Every feature store it hands out is thread-safe and durable on return
 * from a write; a database that cannot be reached surfaces as {@link
 * dev.veil.common.StoreUnavailableException}.
 */
public interface Store extends AutoCloseable {
  KeyStore keys();

  SaltStore salts();

  OptOutStore optOuts();

  ClientStore clients();

  SiteStore sites();

  MetaStore meta();

  /** Deduction services; read on every call, never cached (docs/spec.md 6.1). */
  DeductionStore deductions();

  /** Opt-out webhooks and their delivery cursors (docs/spec.md 4.1). */
  WebhookStore webhooks();

  /** The audit trail: append and list only. */
  AuditStore audit();

  JobLock jobLock();

  /** A description safe to log: kind and location, never a password. */
  String describe();

  /** Whether the database answers a trivial query now. */
  boolean isReachable();

  @Override
  void close();
}

package dev.veil.grpc.fakes;

import dev.veil.common.Versioned;
import dev.veil.core.token.EncryptionKey;
import dev.veil.key.KeyStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

final class InMemoryKeyStore implements KeyStore {
  private final StoreFaults faults;
  private final AtomicLong seq;
  private final List<Versioned<EncryptionKey>> rows = new ArrayList<>();

  InMemoryKeyStore(StoreFaults faults, AtomicLong seq) {
    this.faults = faults;
    this.seq = seq;
  }

  @Override
  public synchronized List<Versioned<EncryptionKey>> keysAfter(long afterSeq) {
    faults.check();
    return rows.stream().filter(v -> v.seq() > afterSeq).toList();
  }

  @Override
  public synchronized Versioned<EncryptionKey> insert(
      int siteId, Instant created, Instant activates, Instant expires, byte[] secret) {
    faults.check();
    EncryptionKey key = new EncryptionKey(rows.size() + 1, siteId, created, activates, expires, secret);
    Versioned<EncryptionKey> row = new Versioned<>(seq.incrementAndGet(), key);
    rows.add(row);
    return row;
  }

  /** Every key with its secret, for tests that check no secret leaves the server. */
  synchronized List<EncryptionKey> all() {
    List<EncryptionKey> keys = new ArrayList<>();
    rows.forEach(v -> keys.add(v.value()));
    return keys;
  }
}

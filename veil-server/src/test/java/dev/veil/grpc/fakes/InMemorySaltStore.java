package dev.veil.grpc.fakes;

import dev.veil.common.Versioned;
import dev.veil.salt.BucketSalt;
import dev.veil.salt.SaltStore;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

final class InMemorySaltStore implements SaltStore {
  private final StoreFaults faults;
  private final AtomicLong seq;
  private final Map<Integer, Versioned<BucketSalt>> byBucket = new HashMap<>();

  InMemorySaltStore(StoreFaults faults, AtomicLong seq) {
    this.faults = faults;
    this.seq = seq;
  }

  @Override
  public synchronized long forEachAfter(long afterSeq, Consumer<Versioned<BucketSalt>> sink) {
    faults.check();
    long last = afterSeq;
    List<Versioned<BucketSalt>> changed = byBucket.values().stream()
        .filter(v -> v.seq() > afterSeq)
        .sorted(Comparator.comparingLong(Versioned::seq))
        .toList();
    for (Versioned<BucketSalt> v : changed) {
      sink.accept(v);
      last = v.seq();
    }
    return last;
  }

  @Override
  public synchronized void saveRotations(List<BucketSalt> rotations) {
    faults.check();
    for (BucketSalt salt : rotations) {
      byBucket.put(salt.bucketIndex(), new Versioned<>(seq.incrementAndGet(), salt));
    }
  }
}

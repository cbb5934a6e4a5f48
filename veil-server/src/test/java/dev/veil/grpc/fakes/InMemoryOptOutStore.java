package dev.veil.grpc.fakes;

import dev.veil.common.Versioned;
import dev.veil.optout.OptOut;
import dev.veil.optout.OptOutStore;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

final class InMemoryOptOutStore implements OptOutStore {
  private final StoreFaults faults;
  private final AtomicLong seq;
  private final Map<ByteBuffer, Versioned<OptOut>> byHash = new LinkedHashMap<>();

  InMemoryOptOutStore(StoreFaults faults, AtomicLong seq) {
    this.faults = faults;
    this.seq = seq;
  }

  @Override
  public synchronized Versioned<OptOut> record(byte[] firstLevelHash, Instant optedOutAt) {
    faults.check();
    return byHash.computeIfAbsent(ByteBuffer.wrap(firstLevelHash.clone()),
        k -> new Versioned<>(seq.incrementAndGet(), new OptOut(firstLevelHash.clone(), optedOutAt)));
  }

  @Override
  public synchronized Optional<OptOut> find(byte[] firstLevelHash) {
    faults.check();
    return Optional.ofNullable(byHash.get(ByteBuffer.wrap(firstLevelHash))).map(Versioned::value);
  }

  @Override
  public synchronized long forEachAfter(long afterSeq, Consumer<Versioned<OptOut>> sink) {
    faults.check();
    long last = afterSeq;
    for (Versioned<OptOut> v : byHash.values()) {
      if (v.seq() > afterSeq) {
        sink.accept(v);
        last = Math.max(last, v.seq());
      }
    }
    return last;
  }
}

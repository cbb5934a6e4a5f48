package dev.veil.grpc.fakes;

import dev.veil.common.MetaStore;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

final class InMemoryMetaStore implements MetaStore {
  private final StoreFaults faults;
  private final Map<String, byte[]> values = new HashMap<>();

  InMemoryMetaStore(StoreFaults faults) {
    this.faults = faults;
  }

  @Override
  public synchronized Optional<byte[]> get(String name) {
    faults.check();
    return Optional.ofNullable(values.get(name)).map(byte[]::clone);
  }

  @Override
  public synchronized byte[] putIfAbsent(String name, byte[] value) {
    faults.check();
    return values.computeIfAbsent(name, k -> value.clone()).clone();
  }

  @Override
  public synchronized boolean compareAndSet(String name, byte[] expected, byte[] update) {
    faults.check();
    byte[] current = values.get(name);
    if (!(expected == null ? current == null : Arrays.equals(current, expected))) {
      return false;
    }
    values.put(name, update.clone());
    return true;
  }
}

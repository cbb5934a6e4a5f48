package dev.veil.grpc.fakes;

import dev.veil.common.StoreUnavailableException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/** Makes every fake store call fail while set: an outage, or any fault a test chooses. */
public final class StoreFaults {
  private final AtomicReference<Supplier<RuntimeException>> fault = new AtomicReference<>();

  /** Every store call throws {@link StoreUnavailableException} until {@link #heal()}. */
  public void outage() {
    failWith(() -> new StoreUnavailableException("connection refused (test outage)", null));
  }

  public void failWith(Supplier<RuntimeException> next) {
    fault.set(next);
  }

  public void heal() {
    fault.set(null);
  }

  void check() {
    Supplier<RuntimeException> f = fault.get();
    if (f != null) {
      throw f.get();
    }
  }
}

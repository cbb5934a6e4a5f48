package dev.veil.sdk.internal;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/** The retries' jitter: uniform in [0, 1), from the calling thread's own generator. */
public final class Jitter implements DoubleSupplier {
  public static final Jitter UNIFORM = new Jitter();

  private Jitter() {}

  @Override
  public double getAsDouble() {
    return ThreadLocalRandom.current().nextDouble();
  }
}

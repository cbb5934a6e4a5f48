package dev.veil.core.token;

import dev.veil.core.crypto.NonceSource;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/** Hands out the given IVs in order, then fails; makes encodings reproducible. */
final class FixedNonces implements NonceSource {
  private final Deque<byte[]> ivs;

  FixedNonces(List<byte[]> ivs) {
    this.ivs = new ArrayDeque<>(ivs);
  }

  @Override
  public void nextBytes(byte[] iv) {
    byte[] next = ivs.removeFirst();
    if (next.length != iv.length) {
      throw new IllegalStateException(
          "fixed IV has " + next.length + " bytes, codec asked for " + iv.length);
    }
    System.arraycopy(next, 0, iv, 0, iv.length);
  }

  boolean isUsedUp() {
    return ivs.isEmpty();
  }
}

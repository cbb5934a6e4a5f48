package dev.veil.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NonceSourceTest {
  @Test
  void secure_fillsEveryCallWithFreshBytes() {
    NonceSource nonces = NonceSource.secure();
    byte[] first = new byte[12];
    byte[] second = new byte[12];

    nonces.nextBytes(first);
    nonces.nextBytes(second);

    assertThat(first).isNotEqualTo(new byte[12]);
    assertThat(second).isNotEqualTo(first);
  }
}

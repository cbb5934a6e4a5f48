package dev.veil.sdk.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FingerprintTest {
  @Test
  void seeds_differFromDrawToDraw() {
    Set<Long> seeds = new HashSet<>();
    for (int i = 0; i < 64; i++) {
      seeds.add(Fingerprint.randomSeed());
    }
    assertThat(seeds).hasSize(64); // 64 draws of 64 random bits: a repeat would be a broken source
  }

  @Test
  void hashes_dependOnTheSeed() {
    byte[] value = "someone@example.com".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    long a = new Fingerprint(1).of(1, value, 0, value.length);
    long b = new Fingerprint(2).of(1, value, 0, value.length);
    assertThat(a).isNotEqualTo(b);
    assertThat(new Fingerprint(1).of(1, value, 0, value.length)).isEqualTo(a);
  }
}

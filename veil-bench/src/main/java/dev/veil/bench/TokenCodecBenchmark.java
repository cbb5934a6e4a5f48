package dev.veil.bench;

import dev.veil.core.crypto.NonceSource;
import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.core.token.AdvertisingTokenPayload;
import dev.veil.core.token.EncryptionKey;
import dev.veil.core.token.KeyLookup;
import dev.veil.core.token.OperatorInfo;
import dev.veil.core.token.PublisherInfo;
import dev.veil.core.token.RefreshTokenCodec;
import dev.veil.core.token.RefreshTokenPayload;
import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The token codecs with production randomness ({@link NonceSource#secure()}): encoding an
 * advertising token (two AES-256-GCM layers, two IVs), a refresh token (one layer), and decoding
 * each. Encodes build the payload record too, as the token service does; decodes cycle through 64
 * tokens encoded in set-up.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TokenCodecBenchmark {
  private static final int SITE_ID = 7;
  private static final int TOKENS = 64;
  private static final OperatorInfo OPERATOR = new OperatorInfo(0, (byte) 'P', 1, 0);
  private static final PublisherInfo PUBLISHER = new PublisherInfo(SITE_ID, 0L, 11);

  private final AdvertisingTokenCodec advertising = new AdvertisingTokenCodec(NonceSource.secure());
  private final RefreshTokenCodec refresh = new RefreshTokenCodec(NonceSource.secure());
  private EncryptionKey master;
  private EncryptionKey site;
  private EncryptionKey refreshKey;
  private KeyLookup keys;
  private byte[] advertisingId;
  private byte[] firstLevelHash;
  private Instant now;
  private String[] advertisingTokens;
  private String[] refreshTokens;
  private int next;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    now = Instant.now();
    master = key(1, EncryptionKey.MASTER_SITE_ID, random);
    refreshKey = key(2, EncryptionKey.REFRESH_SITE_ID, random);
    site = key(3, SITE_ID, random);
    keys =
        id ->
            switch (id) {
              case 1 -> master;
              case 2 -> refreshKey;
              case 3 -> site;
              default -> null;
            };
    advertisingId = bytes(32, random);
    firstLevelHash = bytes(32, random);
    advertisingTokens = new String[TOKENS];
    refreshTokens = new String[TOKENS];
    for (int i = 0; i < TOKENS; i++) {
      advertisingTokens[i] = encodeAdvertising();
      refreshTokens[i] = encodeRefresh();
    }
  }

  private int nextIndex() {
    next = (next + 1) & (TOKENS - 1);
    return next;
  }

  @Benchmark
  public String encodeAdvertising() {
    AdvertisingTokenPayload p =
        new AdvertisingTokenPayload(
            IdentityType.EMAIL,
            now.plus(Duration.ofDays(3)),
            now,
            OPERATOR,
            PUBLISHER,
            0,
            now,
            now,
            advertisingId);
    return advertising.encode(p, master, site);
  }

  @Benchmark
  public AdvertisingTokenPayload decodeAdvertising() {
    return advertising.decode(advertisingTokens[nextIndex()], keys);
  }

  @Benchmark
  public String encodeRefresh() {
    RefreshTokenPayload p =
        new RefreshTokenPayload(
            IdentityType.EMAIL,
            now.plus(Duration.ofDays(30)),
            now,
            OPERATOR,
            PUBLISHER,
            0,
            now,
            firstLevelHash);
    return refresh.encode(p, refreshKey);
  }

  @Benchmark
  public RefreshTokenPayload decodeRefresh() {
    return refresh.decode(refreshTokens[nextIndex()], keys);
  }

  private EncryptionKey key(int id, int siteId, SplittableRandom random) {
    return new EncryptionKey(
        id,
        siteId,
        now.minus(Duration.ofDays(1)),
        now.minus(Duration.ofDays(1)),
        now.plus(Duration.ofDays(30)),
        bytes(32, random));
  }

  private static byte[] bytes(int n, SplittableRandom random) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }
}

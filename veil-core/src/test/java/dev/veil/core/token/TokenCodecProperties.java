package dev.veil.core.token;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.crypto.NonceSource;
import dev.veil.core.identity.IdentityType;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;

/**
 * Both token formats under arbitrary payloads: they round-trip, and every change to their bytes or
 * text is rejected with {@link InvalidTokenException}, never another exception or a payload.
 */
class TokenCodecProperties {
  private static final AdvertisingTokenCodec ADVERTISING =
      new AdvertisingTokenCodec(NonceSource.secure());
  private static final RefreshTokenCodec REFRESH = new RefreshTokenCodec(NonceSource.secure());

  /** One encoded token with the means to respell and decode it. */
  record Issued(
      String format,
      Object payload,
      String token,
      Function<byte[], String> spell,
      Function<byte[], byte[]> unspell,
      Function<String, Object> decoder) {
    byte[] bytes() {
      return unspell.apply(token.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    Object decode(String text) {
      return decoder.apply(text);
    }

    void assertRejected(byte[] changed) {
      assertRejected(spell.apply(changed));
    }

    void assertRejected(String changed) {
      assertThatThrownBy(() -> decode(changed)).isInstanceOf(InvalidTokenException.class);
    }

    @Override
    public String toString() {
      return format + " token";
    }
  }

  @Property
  void encodeThenDecode_givesThePayloadBack(@ForAll("tokens") Issued issued) {
    assertThat(issued.decode(issued.token())).isEqualTo(issued.payload());
  }

  @Property
  void anyFlippedBit_isRejected(
      @ForAll("tokens") Issued issued, @ForAll @IntRange(max = 10_000) int position) {
    byte[] bytes = issued.bytes();
    int bit = position % (bytes.length * 8);
    bytes[bit / 8] ^= (byte) (1 << (bit % 8));

    issued.assertRejected(bytes);
  }

  @Property
  void anyReplacedByte_isRejected(
      @ForAll("tokens") Issued issued,
      @ForAll @IntRange(max = 10_000) int position,
      @ForAll byte value) {
    byte[] bytes = issued.bytes();
    int index = position % bytes.length;
    Assume.that(bytes[index] != value);
    bytes[index] = value;

    issued.assertRejected(bytes);
  }

  @Property
  void anyReplacedCharacter_isRejected(
      @ForAll("tokens") Issued issued,
      @ForAll @IntRange(max = 10_000) int position,
      @ForAll char value) {
    int index = position % issued.token().length();
    Assume.that(issued.token().charAt(index) != value);
    StringBuilder text = new StringBuilder(issued.token());
    text.setCharAt(index, value);

    issued.assertRejected(text.toString());
  }

  @Property
  void anyTruncation_isRejected(
      @ForAll("tokens") Issued issued, @ForAll @IntRange(max = 10_000) int cut) {
    byte[] bytes = issued.bytes();
    String token = issued.token();

    issued.assertRejected(Arrays.copyOf(bytes, cut % bytes.length));
    issued.assertRejected(token.substring(0, cut % token.length()));
  }

  @Property
  void anyExtension_isRejected(
      @ForAll("tokens") Issued issued,
      @ForAll @Size(min = 1, max = 40) byte[] extra,
      @ForAll @StringLength(min = 1, max = 8) String suffix) {
    byte[] bytes = issued.bytes();
    byte[] extended = Arrays.copyOf(bytes, bytes.length + extra.length);
    System.arraycopy(extra, 0, extended, bytes.length, extra.length);

    issued.assertRejected(extended);
    issued.assertRejected(issued.token() + suffix);
  }

  @Property
  void swappingTheKeyId_isRejected(
      @ForAll("tokens") Issued issued, @ForAll("knownOrAnyKeyIds") int keyId) {
    byte[] bytes = issued.bytes();
    byte[] swapped = bytes.clone();
    java.nio.ByteBuffer.wrap(swapped).putInt(2, keyId);
    Assume.that(!Arrays.equals(swapped, bytes));

    issued.assertRejected(swapped);
  }

  @Property
  void swappingTheVersion_isRejected(@ForAll("tokens") Issued issued, @ForAll byte version) {
    byte[] bytes = issued.bytes();
    Assume.that(bytes[1] != version);
    bytes[1] = version;

    issued.assertRejected(bytes);
  }

  @Property
  void switchingThePrefixBetweenEmailAndPhone_isRejected(@ForAll("tokens") Issued issued) {
    byte[] bytes = issued.bytes();
    bytes[0] =
        bytes[0] == IdentityType.EMAIL.prefix()
            ? IdentityType.PHONE.prefix()
            : IdentityType.EMAIL.prefix();

    issued.assertRejected(bytes);
  }

  @Property
  void advertisingPrivacyBitsUsingTheTopByte_areRefusedByEncode(
      @ForAll("advertisingPayloads") AdvertisingTokenPayload p,
      @ForAll @IntRange(min = 1, max = 255) int topByte) {
    AdvertisingTokenPayload wide =
        new AdvertisingTokenPayload(
            p.identityType(),
            p.expires(),
            p.created(),
            p.operator(),
            p.publisher(),
            (topByte << 24) | p.privacyBits(),
            p.established(),
            p.refreshed(),
            p.advertisingId());

    assertThatThrownBy(
            () ->
                ADVERTISING.encode(
                    wide, TestKeys.MASTER, TestKeys.siteKeyFor(p.publisher().siteId())))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Property
  void splicingTwoTokens_isRejected(
      @ForAll("tokens") Issued first,
      @ForAll("tokens") Issued second,
      @ForAll @IntRange(min = 1, max = 10_000) int position) {
    Assume.that(first.format().equals(second.format()));
    byte[] a = first.bytes();
    byte[] b = second.bytes();
    int cut = 1 + position % (a.length - 1);
    byte[] spliced = Arrays.copyOf(a, a.length);
    System.arraycopy(b, cut, spliced, cut, b.length - cut);
    Assume.that(!Arrays.equals(spliced, a) && !Arrays.equals(spliced, b));

    first.assertRejected(spliced);
  }

  @Property
  void arbitraryText_isRejectedOnlyWithInvalidTokenException(
      @ForAll("tokens") Issued issued, @ForAll String text) {
    issued.assertRejected(text);
  }

  @Property
  void arbitraryBytesOfTheRightLength_areRejected(
      @ForAll("tokens") Issued issued, @ForAll @Size(163) byte[] random) {
    byte[] bytes = Arrays.copyOf(random, issued.bytes().length);
    bytes[1] = issued.bytes()[1];

    issued.assertRejected(bytes);
  }

  @Provide
  Arbitrary<Integer> knownOrAnyKeyIds() {
    return Arbitraries.oneOf(
        Arbitraries.of(101, 102, 201, 202, 203, 301, 302), Arbitraries.integers());
  }

  @Provide
  Arbitrary<Issued> tokens() {
    return Arbitraries.oneOf(advertisingTokens(), refreshTokens());
  }

  /** Advertising payloads; their privacy bits fit in 24 bits, as the codec requires. */
  @Provide
  static Arbitrary<AdvertisingTokenPayload> advertisingPayloads() {
    return Combinators.combine(
            Arbitraries.of(IdentityType.class),
            times(4),
            operators(),
            publishers(),
            Arbitraries.integers().between(0, 0x00FF_FFFF),
            bytes32())
        .as(
            (type, t, operator, publisher, privacy, id) ->
                new AdvertisingTokenPayload(
                    type, t[0], t[1], operator, publisher, privacy, t[2], t[3], id));
  }

  private static Arbitrary<Issued> advertisingTokens() {
    Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();
    return advertisingPayloads()
        .map(
            p ->
                new Issued(
                    "advertising",
                    p,
                    ADVERTISING.encode(
                        p, TestKeys.MASTER, TestKeys.siteKeyFor(p.publisher().siteId())),
                    encoder::encodeToString,
                    Base64.getUrlDecoder()::decode,
                    text -> ADVERTISING.decode(text, TestKeys.ALL)));
  }

  private static Arbitrary<Issued> refreshTokens() {
    Arbitrary<RefreshTokenPayload> payloads =
        Combinators.combine(
                Arbitraries.of(IdentityType.class),
                times(3),
                operators(),
                publishers(),
                Arbitraries.integers(),
                bytes32())
            .as(
                (type, t, operator, publisher, privacy, hash) ->
                    new RefreshTokenPayload(
                        type, t[0], t[1], operator, publisher, privacy, t[2], hash));
    return payloads.map(
        p ->
            new Issued(
                "refresh",
                p,
                REFRESH.encode(p, TestKeys.REFRESH),
                Base64.getEncoder()::encodeToString,
                Base64.getDecoder()::decode,
                text -> REFRESH.decode(text, TestKeys.ALL)));
  }

  private static Arbitrary<Instant[]> times(int count) {
    return Arbitraries.longs().map(Instant::ofEpochMilli).array(Instant[].class).ofSize(count);
  }

  private static Arbitrary<OperatorInfo> operators() {
    return Combinators.combine(
            Arbitraries.integers(),
            Arbitraries.bytes(),
            Arbitraries.integers(),
            Arbitraries.integers())
        .as(OperatorInfo::new);
  }

  private static Arbitrary<PublisherInfo> publishers() {
    return Combinators.combine(
            Arbitraries.of(TestKeys.SITE, TestKeys.OTHER_SITE),
            Arbitraries.longs(),
            Arbitraries.integers())
        .as(PublisherInfo::new);
  }

  private static Arbitrary<byte[]> bytes32() {
    return Arbitraries.bytes().array(byte[].class).ofSize(32);
  }
}

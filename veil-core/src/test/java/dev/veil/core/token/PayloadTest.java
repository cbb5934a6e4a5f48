package dev.veil.core.token;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.identity.IdentityType;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class PayloadTest {
  private static final Instant PRECISE = Instant.parse("2026-03-01T12:00:00.123456789Z");
  private static final OperatorInfo OPERATOR = new OperatorInfo(1, (byte) 2, 3, 4);
  private static final PublisherInfo PUBLISHER = new PublisherInfo(5, 6L, 7);

  @Test
  void advertisingPayload_truncatesTimesToMillis() {
    AdvertisingTokenPayload p =
        new AdvertisingTokenPayload(
            IdentityType.EMAIL,
            PRECISE,
            PRECISE,
            OPERATOR,
            PUBLISHER,
            0,
            PRECISE,
            PRECISE,
            new byte[32]);

    Instant millis = Instant.parse("2026-03-01T12:00:00.123Z");
    assertThat(p.expires()).isEqualTo(millis);
    assertThat(p.created()).isEqualTo(millis);
    assertThat(p.established()).isEqualTo(millis);
    assertThat(p.refreshed()).isEqualTo(millis);
  }

  @Test
  void refreshPayload_truncatesTimesTowardsThePast_alsoBeforeTheEpoch() {
    Instant beforeEpoch = Instant.ofEpochSecond(-1, 999_999_999);
    RefreshTokenPayload p =
        new RefreshTokenPayload(
            IdentityType.EMAIL,
            beforeEpoch,
            PRECISE,
            OPERATOR,
            PUBLISHER,
            0,
            PRECISE,
            new byte[32]);

    assertThat(p.expires().toEpochMilli()).isEqualTo(-1);
  }

  @Test
  void payloads_copyTheirBytesInAndOut() {
    byte[] id = new byte[32];
    AdvertisingTokenPayload p =
        new AdvertisingTokenPayload(
            IdentityType.EMAIL, PRECISE, PRECISE, OPERATOR, PUBLISHER, 0, PRECISE, PRECISE, id);
    id[0] = 1;
    p.advertisingId()[1] = 1;

    assertThat(p.advertisingId()).isEqualTo(new byte[32]);
    assertThat(p)
        .isEqualTo(
            new AdvertisingTokenPayload(
                IdentityType.EMAIL,
                PRECISE,
                PRECISE,
                OPERATOR,
                PUBLISHER,
                0,
                PRECISE,
                PRECISE,
                new byte[32]))
        .hasSameHashCodeAs(p);
  }

  @Test
  void payloads_rejectWrongLengthsAndUnrepresentableTimes() {
    assertThatThrownBy(
            () ->
                new AdvertisingTokenPayload(
                    IdentityType.EMAIL,
                    PRECISE,
                    PRECISE,
                    OPERATOR,
                    PUBLISHER,
                    0,
                    PRECISE,
                    PRECISE,
                    new byte[31]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new RefreshTokenPayload(
                    IdentityType.EMAIL,
                    PRECISE,
                    PRECISE,
                    OPERATOR,
                    PUBLISHER,
                    0,
                    PRECISE,
                    new byte[33]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new RefreshTokenPayload(
                    IdentityType.EMAIL,
                    Instant.MAX,
                    PRECISE,
                    OPERATOR,
                    PUBLISHER,
                    0,
                    PRECISE,
                    new byte[32]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new RefreshTokenPayload(
                    IdentityType.EMAIL,
                    null,
                    PRECISE,
                    OPERATOR,
                    PUBLISHER,
                    0,
                    PRECISE,
                    new byte[32]))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void toString_hidesAdvertisingIdAndFirstLevelHash() {
    byte[] bytes = new byte[32];
    bytes[0] = 0x55;
    String b64 = Base64.getEncoder().encodeToString(bytes);
    AdvertisingTokenPayload ad =
        new AdvertisingTokenPayload(
            IdentityType.EMAIL, PRECISE, PRECISE, OPERATOR, PUBLISHER, 0, PRECISE, PRECISE, bytes);
    RefreshTokenPayload refresh =
        new RefreshTokenPayload(
            IdentityType.EMAIL, PRECISE, PRECISE, OPERATOR, PUBLISHER, 0, PRECISE, bytes);

    assertThat(ad.toString()).contains("redacted").doesNotContain(b64).doesNotContain("[85");
    assertThat(refresh.toString()).contains("redacted").doesNotContain(b64).doesNotContain("[85");
  }
}

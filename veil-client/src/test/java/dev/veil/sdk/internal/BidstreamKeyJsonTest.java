package dev.veil.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.token.EncryptionKey;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BidstreamKeyJsonTest {
  private static final String SECRET = Base64.getEncoder().encodeToString(new byte[32]);

  private static BidstreamKeyJson.Answer read(String json) throws IOException {
    return BidstreamKeyJson.read(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
  }

  private static String key(int id) {
    return "{\"id\":"
        + id
        + ",\"created\":1767225600,\"activates\":1767225660,\"expires\":1767830400,"
        + "\"secret\":\""
        + SECRET
        + "\"}";
  }

  @Test
  void readsUid2sShape() throws IOException {
    BidstreamKeyJson.Answer a =
        read(
            "{\"body\":{\"max_bidstream_lifetime_seconds\":259200,\"identity_scope\":\"UID2\","
                + "\"allow_clock_skew_seconds\":1800,\"keys\":["
                + key(11)
                + ","
                + key(12)
                + "],\"site_data\":[{\"id\":7,\"domain_names\":[\"example.com\",\"Example.org\"]},"
                + "{\"id\":8,\"domain_names\":[]}]},\"status\":\"success\"}");

    assertThat(a.keys()).extracting(EncryptionKey::id).containsExactly(11, 12);
    EncryptionKey k = a.keys().get(0);
    assertThat(k.siteId()).isEqualTo(BidstreamKeyJson.NO_SITE_ID);
    assertThat(k.created()).isEqualTo(Instant.ofEpochSecond(1767225600));
    assertThat(k.activates()).isEqualTo(Instant.ofEpochSecond(1767225660));
    assertThat(k.expires()).isEqualTo(Instant.ofEpochSecond(1767830400));
    assertThat(k.secret()).hasSize(32);
    assertThat(a.rules().maxLifetimeSeconds()).isEqualTo(259200);
    assertThat(a.rules().allowedSkewSeconds()).isEqualTo(1800);
    assertThat(a.rules().namesBySite())
        .isEqualTo(Map.of(7, List.of("example.com", "Example.org"), 8, List.of()));
    assertThat(a.rules().siteAllows(7, "example.ORG")).isTrue();
    assertThat(a.rules().siteAllows(8, "example.com")).isFalse();
    assertThat(a.rules().siteAllows(9, "example.com")).isFalse();
  }

  @Test
  void absentOrNullMembers_takeTheirDefaults_andUnknownOnesAreSkipped() throws IOException {
    BidstreamKeyJson.Answer bare = read("{\"status\":\"success\",\"body\":{}}");
    BidstreamKeyJson.Answer nulls =
        read(
            "{\"status\":\"success\",\"body\":{\"keys\":null,\"site_data\":null,"
                + "\"max_bidstream_lifetime_seconds\":null,\"future\":{\"a\":[1]},"
                + "\"keys_extra\":[]}}");

    for (BidstreamKeyJson.Answer a : List.of(bare, nulls)) {
      assertThat(a.keys()).isEmpty();
      assertThat(a.rules().maxLifetimeSeconds()).isEqualTo(Long.MAX_VALUE);
      assertThat(a.rules().allowedSkewSeconds()).isEqualTo(1800);
      assertThat(a.rules().namesBySite()).isEmpty();
    }
  }

  @Test
  void aKeysetIdOrOtherMemberOfAKey_isSkipped_andSiteZeroIsDropped() throws IOException {
    BidstreamKeyJson.Answer a =
        read(
            "{\"status\":\"success\",\"body\":{\"keys\":[{\"keyset_id\":3,\"id\":5,"
                + "\"created\":1,\"activates\":1,\"expires\":2,\"secret\":\""
                + SECRET
                + "\"}],\"site_data\":[{\"id\":0,\"domain_names\":[\"x.com\"]}]}}");

    assertThat(a.keys()).singleElement().extracting(EncryptionKey::id).isEqualTo(5);
    assertThat(a.rules().namesBySite()).isEmpty();
  }

  @Test
  void brokenAnswers_areRefused_withoutQuotingASecret() {
    String shortSecret = Base64.getEncoder().encodeToString(new byte[16]);
    List<String> broken =
        List.of(
            "{\"status\":\"error\",\"message\":\"no\"}",
            "{\"status\":\"success\",\"body\":{\"keys\":[{\"id\":1}]}}",
            "{\"status\":\"success\",\"body\":{\"keys\":[{\"id\":1,\"created\":1,"
                + "\"activates\":1,\"expires\":2,\"secret\":\""
                + shortSecret
                + "\"}]}}",
            "{\"status\":\"success\",\"body\":{\"max_bidstream_lifetime_seconds\":-1}}",
            "{\"status\":\"success\",\"body\":{\"site_data\":[{\"domain_names\":[]}]}}",
            "{\"status\":\"success\",\"body\":{\"site_data\":[{\"id\":1,\"domain_names\":[3]}]}}");

    for (String json : broken) {
      assertThatThrownBy(() -> read(json))
          .as(json)
          .isInstanceOf(IOException.class)
          .message()
          .doesNotContain(shortSecret);
    }
  }
}

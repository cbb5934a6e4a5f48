package dev.veil.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.grpc.deduction.v1.DeductionStruct;
import dev.veil.grpc.identity.admin.v1.BucketIdList;
import dev.veil.grpc.identity.admin.v1.Client;
import dev.veil.grpc.identity.admin.v1.EncryptionKeyInfo;
import dev.veil.grpc.identity.admin.v1.KeyState;
import dev.veil.grpc.identity.admin.v1.ListKeysResponse;
import dev.veil.grpc.identity.admin.v1.RotateSaltsRequest;
import dev.veil.grpc.identity.admin.v1.SetClientEnabledResponse;
import org.junit.jupiter.api.Test;

class ProtoJsonTest {
  private final ObjectMapper mapper = new ObjectMapper();

  @Test
  void write_usesProtoFieldNames_numbersForInt64_andEnumNames() throws Exception {
    ListKeysResponse keys =
        ListKeysResponse.newBuilder()
            .addKeys(
                EncryptionKeyInfo.newBuilder()
                    .setId(7)
                    .setSiteId(-1)
                    .setExpiresMs(1_800_000_000_000L)
                    .setState(KeyState.KEY_STATE_ACTIVE))
            .build();

    JsonNode json = mapper.readTree(ProtoJson.write(keys));

    JsonNode key = json.get("keys").get(0);
    assertThat(key.get("site_id").asInt()).isEqualTo(-1);
    assertThat(key.get("expires_ms").isNumber()).isTrue();
    assertThat(key.get("expires_ms").asLong()).isEqualTo(1_800_000_000_000L);
    assertThat(key.get("state").asText()).isEqualTo("KEY_STATE_ACTIVE");
  }

  @Test
  void write_includesDefaultScalars_andOmitsUnsetMessagesAndOneofMembers() throws Exception {
    JsonNode disabled =
        mapper.readTree(
            ProtoJson.write(
                SetClientEnabledResponse.newBuilder()
                    .setClient(Client.newBuilder().setId(3))
                    .build()));
    JsonNode empty =
        mapper.readTree(ProtoJson.write(SetClientEnabledResponse.getDefaultInstance()));
    JsonNode buckets =
        mapper.readTree(
            ProtoJson.write(
                RotateSaltsRequest.newBuilder()
                    .setBuckets(BucketIdList.newBuilder().addBucketIds("abc"))
                    .build()));

    assertThat(disabled.get("client").get("enabled").asBoolean(true)).isFalse();
    assertThat(disabled.get("client").get("roles").isArray()).isTrue();
    assertThat(empty.has("client")).isFalse();
    assertThat(buckets.has("fraction")).isFalse();
    assertThat(buckets.get("buckets").get("bucket_ids").get(0).asText()).isEqualTo("abc");
  }

  @Test
  void write_printsUint32AboveTheSignedRangeUnsigned() throws Exception {
    JsonNode json =
        mapper.readTree(
            ProtoJson.write(
                DeductionResp.newBuilder()
                    .addData(
                        DeductionStruct.newBuilder().setId(-1).setPayMethodId(Integer.MIN_VALUE))
                    .build()));

    JsonNode record = json.get("data").get(0);
    assertThat(record.get("id").asLong()).isEqualTo(4_294_967_295L);
    assertThat(record.get("pay_method_id").asLong()).isEqualTo(2_147_483_648L);
    assertThat(json.get("code").asInt()).isZero();
    assertThat(json.get("success").asBoolean(true)).isFalse();
  }
}

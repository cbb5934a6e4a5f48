package dev.veil.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.deduction.Deduction;
import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.grpc.deduction.v1.DeductionStruct;
import org.junit.jupiter.api.Test;

/** The page size {@code veil admin deduction list} uses when it fetches every record. */
class DeductionPagingTest {
  private static final int CLIENT_LIMIT_BYTES = 4 * 1024 * 1024;

  @Test
  void aPageOfRecordsOfTheMaximumSize_staysUnderHalfTheClientsLimit() {
    String fourBytes = "\uD83D\uDE00"; // one code point, 4 bytes in UTF-8
    DeductionStruct largest =
        DeductionStruct.newBuilder()
            .setTitle(fourBytes.repeat(Deduction.MAX_TITLE_LENGTH))
            .setDesc(fourBytes.repeat(Deduction.MAX_DESC_LENGTH))
            .setStatus(1)
            .setId(-1)
            .setPayMethodId(-1)
            .setCreatedMs(Long.MAX_VALUE)
            .setUpdatedMs(Long.MAX_VALUE)
            .build();
    DeductionResp.Builder page =
        DeductionResp.newBuilder()
            .setSuccess(true)
            .setMessage("success")
            .setNextPageToken("x".repeat(64));
    for (int i = 0; i < DeductionCommand.Paging.ALL_PAGE_SIZE; i++) {
      page.addData(largest);
    }

    assertThat(page.build().getSerializedSize()).isLessThan(CLIENT_LIMIT_BYTES / 2);
  }
}

package dev.veil.deduction;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import org.junit.jupiter.api.Test;

class PageTokenTest {
  @Test
  void roundTrip_andEmptyMeansTheStart() {
    assertThat(PageToken.parse(PageToken.after(1))).contains(1L);
    assertThat(PageToken.parse(PageToken.after(Deduction.MAX_ID))).contains(Deduction.MAX_ID);
    assertThat(PageToken.parse("")).contains(0L);
  }

  @Test
  void anythingElse_isRefused() {
    assertThat(PageToken.parse(PageToken.after(5) + "=")).isEmpty(); // not the canonical form
    assertThat(PageToken.parse(PageToken.after(0))).isEmpty();
    assertThat(PageToken.parse(PageToken.after(Deduction.MAX_ID + 1))).isEmpty();
    assertThat(PageToken.parse("not base64!")).isEmpty();
    assertThat(PageToken.parse(PageToken.after(5).toLowerCase(Locale.ROOT))).isEmpty();
  }
}

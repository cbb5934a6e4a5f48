package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CsvTest {
  @Test
  void fields_plainQuotedAndEmpty() {
    assertThat(Csv.fields("a@example.com")).containsExactly("a@example.com");
    assertThat(Csv.fields("a,\"b,c\",,\"d \"\"e\"\"\"")).containsExactly("a", "b,c", "", "d \"e\"");
  }

  @Test
  void field_quotesOnlyWhenNeeded_andRoundTrips() {
    assertThat(Csv.field("plain@example.com")).isEqualTo("plain@example.com");
    String odd = "\"odd,\"@example.com";
    assertThat(Csv.fields(Csv.field(odd))).containsExactly(odd);
  }
}

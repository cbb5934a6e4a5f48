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

  @Test
  void fields_aQuoteOpensAQuotedFieldOnlyWhereTheFieldBegins() {
    assertThat(Csv.fields("a@example.com,O\"Brien, x,\"y\""))
        .containsExactly("a@example.com", "O\"Brien", " x", "y");
    assertThat(Csv.fields("  \"a,b\",c")).containsExactly("  a,b", "c");
  }

  @Test
  void state_saysWhetherAQuotedFieldGoesOnInTheNextLine() {
    assertThat(Csv.state("a@example.com,\"note", Csv.FIELD_START)).isEqualTo(Csv.QUOTED);
    assertThat(Csv.state("a@example.com,\"say \"\"hi\"\"\"", Csv.FIELD_START))
        .isNotEqualTo(Csv.QUOTED);
    assertThat(Csv.state("a@example.com,O\"Brien", Csv.FIELD_START)).isNotEqualTo(Csv.QUOTED);
    assertThat(Csv.state("still \"\"in\"\" it", Csv.QUOTED)).isEqualTo(Csv.QUOTED);
    assertThat(Csv.state("end\",next", Csv.QUOTED)).isNotEqualTo(Csv.QUOTED);
    // A record joined from its lines reads as its lines did, one after another.
    assertThat(Csv.fields("a@example.com,\"l1\nl2, \"\"x\"\"\",z"))
        .containsExactly("a@example.com", "l1\nl2, \"x\"", "z");
  }
}

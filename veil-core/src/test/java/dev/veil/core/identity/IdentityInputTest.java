package dev.veil.core.identity;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IdentityInputTest {
  @Test
  void fromParameterName_findsEachInputByItsName() {
    for (IdentityInput input : IdentityInput.values()) {
      assertThat(IdentityInput.fromParameterName(input.parameterName())).isSameAs(input);
    }
    assertThat(IdentityInput.EMAIL_HASH.parameterName()).isEqualTo("email_hash");
    assertThat(IdentityInput.PHONE.type()).isEqualTo(IdentityType.PHONE);
  }

  @Test
  void fromParameterName_unknownOrDifferentCase_isNull() {
    assertThat(IdentityInput.fromParameterName("EMAIL")).isNull();
    assertThat(IdentityInput.fromParameterName("token")).isNull();
    assertThat(IdentityInput.fromParameterName(null)).isNull();
  }

  @Test
  void isHash_onlyForHashedInputs() {
    assertThat(IdentityInput.EMAIL_HASH.isHash()).isTrue();
    assertThat(IdentityInput.PHONE_HASH.isHash()).isTrue();
    assertThat(IdentityInput.EMAIL.isHash()).isFalse();
    assertThat(IdentityInput.PHONE.isHash()).isFalse();
  }
}

package dev.veil.core.identity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

class IdentityHashProperties {
  @Property
  void everyAcceptedSpellingOfAHash_parsesToTheSameValue(@ForAll @Size(32) byte[] bytes) {
    IdentityHash expected = IdentityHash.of(IdentityType.PHONE, bytes);
    String padded = Base64.getEncoder().encodeToString(bytes);
    String hex = HexFormat.of().formatHex(bytes);

    assertThat(IdentityHash.parse(IdentityInput.PHONE_HASH, padded)).isEqualTo(expected);
    assertThat(IdentityHash.parse(IdentityInput.PHONE_HASH, padded.substring(0, 43)))
        .isEqualTo(expected);
    assertThat(IdentityHash.parse(IdentityInput.PHONE_HASH, hex)).isEqualTo(expected);
    assertThat(IdentityHash.parse(IdentityInput.PHONE_HASH, hex.toUpperCase(Locale.ROOT)))
        .isEqualTo(expected);
    assertThat(expected.toBase64()).isEqualTo(padded);
  }

  @Property
  void anEmail_equalsTheParsedBase64OfItsOwnHash(@ForAll(supplier = EmailLike.class) String raw) {
    EmailNormalizer.normalize(raw)
        .ifPresent(
            normal -> {
              IdentityHash fromEmail = IdentityHash.parse(IdentityInput.EMAIL, raw);

              assertThat(IdentityHash.parse(IdentityInput.EMAIL_HASH, fromEmail.toBase64()))
                  .isEqualTo(fromEmail);
              assertThat(IdentityHash.parse(IdentityInput.EMAIL, normal)).isEqualTo(fromEmail);
            });
  }
}

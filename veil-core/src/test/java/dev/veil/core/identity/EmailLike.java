package dev.veil.core.identity;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ArbitrarySupplier;
import net.jqwik.api.Combinators;

/** Strings shaped like email addresses, valid or not, that exercise every normalization rule. */
public class EmailLike implements ArbitrarySupplier<String> {
  @Override
  public Arbitrary<String> get() {
    Arbitrary<String> local =
        Arbitraries.strings().withChars("aAzZ09._+-é \t").ofMinLength(0).ofMaxLength(12);
    Arbitrary<String> domain =
        Arbitraries.of(
            "gmail.com", "GMail.COM", "example.org", "ü.de", "", "a@b.c", "x y.z", "gmail.com ");
    Arbitrary<String> padding = Arbitraries.of("", " ", "\t", "\r\n");
    return Combinators.combine(padding, local, domain, padding)
        .as((p, l, d, q) -> p + l + "@" + d + q);
  }
}

package dev.veil.core.golden;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.veil.core.identity.EmailNormalizer;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.core.identity.PhoneNormalizer;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The identity sections of the golden vectors: normalization and hash parsing. The expected normal
 * forms and verdicts are written by hand; the writer refuses to emit a case the implementation
 * disagrees with.
 */
final class GoldenIdentityCases {
  private static final HexFormat HEX = HexFormat.of();

  private GoldenIdentityCases() {}

  static void normalization(ArrayNode out) {
    email(out, "user@example.com", "user@example.com");
    email(out, "  User.Name+Tag@Example.COM\t", "user.name+tag@example.com");
    email(out, "Jane.Doe+news@GMAIL.com", "janedoe@gmail.com");
    email(out, "j.a.n.e@gmail.com", "jane@gmail.com");
    email(out, "jane+a.b@gmail.com", "jane@gmail.com");
    email(out, "jane.doe+x@googlemail.com", "jane.doe+x@googlemail.com");
    email(out, "jane.doe@gmail.com.example.org", "jane.doe@gmail.com.example.org");
    email(out, "Ünïcode.User@Exämple.COM", "Ünïcode.user@exämple.com");
    email(out, "validate@example.com", "validate@example.com");
    email(out, "\r\n x@y \n", "x@y");
    for (String invalid :
        List.of(
            "",
            "   ",
            "no-at-sign",
            "two@@example.com",
            "a@b@example.com",
            "@example.com",
            "user@",
            "us er@example.com",
            "user\u00A0@example.com",
            "user\u200B@example.com",
            "user\u0001@example.com",
            "+only@gmail.com",
            "...@gmail.com",
            "a".repeat(243) + "@example.com")) {
      email(out, invalid, null);
    }
    for (String valid :
        List.of("+12345678901", "+1234567890", "+123456789012345", "+00000000000")) {
      phone(out, valid, valid);
    }
    for (String invalid :
        List.of(
            "12345678901",
            "+1 234 567 8901",
            "+1-234-567-8901",
            "+123456789",
            "+1234567890123456",
            " +12345678901",
            "+12345678901 ",
            "+1234567890a")) {
      phone(out, invalid, null);
    }
  }

  private static void email(ArrayNode out, String raw, String expected) {
    boolean agrees = EmailNormalizer.normalize(raw).equals(Optional.ofNullable(expected));
    GoldenVectorsWriter.check(agrees, "email rule for " + raw);
    addNormalization(out, IdentityInput.EMAIL, raw, expected);
  }

  private static void phone(ArrayNode out, String raw, String expected) {
    boolean agrees = PhoneNormalizer.normalize(raw).equals(Optional.ofNullable(expected));
    GoldenVectorsWriter.check(agrees, "phone rule for " + raw);
    addNormalization(out, IdentityInput.PHONE, raw, expected);
  }

  private static void addNormalization(
      ArrayNode out, IdentityInput input, String raw, String expected) {
    ObjectNode c = out.addObject().put("input", input.parameterName()).put("raw", raw);
    if (expected == null) {
      c.putNull("normalized").putNull("sha256Base64");
      return;
    }
    String hash = Base64.getEncoder().encodeToString(GoldenVectorsWriter.sha256(expected));
    GoldenVectorsWriter.check(
        IdentityHash.parse(input, raw).toBase64().equals(hash), "hash of " + raw);
    c.put("normalized", expected).put("sha256Base64", hash);
  }

  static void hashParse(ArrayNode out) {
    byte[] hash = plusContainingHash();
    String b64 = Base64.getEncoder().encodeToString(hash);
    String hex = HEX.formatHex(hash);
    hashCase(out, "email_hash", "standard base64 with padding", b64, b64);
    hashCase(out, "email_hash", "standard base64 without padding", b64.substring(0, 43), b64);
    hashCase(out, "phone_hash", "lowercase hex", hex, b64);
    hashCase(out, "phone_hash", "uppercase hex", hex.toUpperCase(Locale.ROOT), b64);
    hashCase(
        out,
        "email_hash",
        "'+' turned into a space (client forgot to URL-encode)",
        b64.replace('+', ' '),
        null);
    hashCase(
        out, "email_hash", "base64url alphabet", b64.replace('+', '-').replace('/', '_'), null);
    hashCase(out, "email_hash", "non-canonical last character", nonCanonical(b64), null);
    hashCase(out, "email_hash", "31 bytes", Base64.getEncoder().encodeToString(new byte[31]), null);
    hashCase(out, "email_hash", "33 bytes", Base64.getEncoder().encodeToString(new byte[33]), null);
    hashCase(out, "phone_hash", "63 hex digits", hex.substring(1), null);
    hashCase(out, "phone_hash", "non-hex letter", "g" + hex.substring(1), null);
    hashCase(out, "email_hash", "surrounding space", " " + b64, null);
    hashCase(out, "email_hash", "empty", "", null);
  }

  private static void hashCase(
      ArrayNode out, String input, String note, String value, String expectedBase64) {
    IdentityInput kind = IdentityInput.fromParameterName(input);
    boolean parses;
    try {
      parses = IdentityHash.parse(kind, value).toBase64().equals(expectedBase64);
    } catch (RuntimeException invalid) {
      parses = false;
    }
    GoldenVectorsWriter.check(parses == (expectedBase64 != null), "hash parse: " + note);
    ObjectNode c = out.addObject().put("input", input).put("note", note).put("value", value);
    c.put("valid", expectedBase64 != null);
    if (expectedBase64 != null) {
      c.put("base64", expectedBase64);
    }
  }

  /** The first of "golden hash 0", "golden hash 1", ... whose SHA-256 has a '+' in base64. */
  private static byte[] plusContainingHash() {
    for (int i = 0; ; i++) {
      byte[] hash = GoldenVectorsWriter.sha256("golden hash " + i);
      if (GoldenVectorsWriter.b64(hash).contains("+")) {
        return hash;
      }
    }
  }

  private static String nonCanonical(String b64) {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char last = alphabet.charAt(alphabet.indexOf(b64.charAt(42)) | 1);
    return b64.substring(0, 42) + last + "=";
  }
}

package dev.veil.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The browser SDK file (docs/spec.md 7.1) as the server ships it: the classpath resource {@value
 * #RESOURCE}, which the build copies from {@code sdk-js/veil-sdk.js} (the one source), with the
 * version declared inside it and a strong ETag of its bytes. Immutable.
 */
public final class SdkScript {
  /** Where the build puts the file on the class path. */
  public static final String RESOURCE = "/static/veil-sdk.js";

  /** {@code text/javascript} is the JavaScript media type (RFC 9239). */
  public static final String CONTENT_TYPE = "text/javascript; charset=utf-8";

  private static final Pattern VERSION = Pattern.compile("const VERSION = '([0-9A-Za-z.+-]+)';");

  private final byte[] bytes;
  private final String version;
  private final String etag;

  private SdkScript(byte[] bytes) {
    this.bytes = bytes;
    Matcher m = VERSION.matcher(new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
    if (!m.find()) {
      throw new IllegalStateException(RESOURCE + " declares no version (const VERSION = '…';)");
    }
    this.version = m.group(1);
    this.etag =
        "\""
            + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(bytes)).substring(0, 22)
            + "\"";
  }

  /** Reads the file from the class path; fails if the build did not put it there. */
  public static SdkScript load() {
    try (InputStream in = SdkScript.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            "resource "
                + RESOURCE
                + " is missing from the classpath; build with Maven, "
                + "which copies sdk-js/veil-sdk.js into it");
      }
      return new SdkScript(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }

  /** A copy of the file's bytes. */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** The SDK version, e.g. {@code 0.2.0}. */
  public String version() {
    return version;
  }

  /** A strong ETag (quoted) that changes with any byte of the file. */
  public String etag() {
    return etag;
  }

  /** True if an {@code If-None-Match} header value names this file's ETag (or is {@code *}). */
  public boolean matches(String ifNoneMatch) {
    if (ifNoneMatch == null) {
      return false;
    }
    for (String tag : ifNoneMatch.split(",")) {
      String t = tag.strip();
      if (t.equals("*") || (t.startsWith("W/") ? t.substring(2) : t).equals(etag)) {
        return true;
      }
    }
    return false;
  }

  private static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}

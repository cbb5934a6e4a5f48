import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Prints a v2 request envelope (base64) of a JSON body under a client's secret, stamped now, for
 * load tests of the v2 endpoints (bench/v2-tokens.sh). The envelope stays valid for about two
 * minutes (the server's window). Run with veil-core on the class path: {@code java -cp
 * veil-cli/target/lib/veil-core-*.jar bench/V2Seal.java SECRET JSON [binary]}; with {@code
 * binary}, the raw envelope bytes ({@code application/octet-stream}, as UID2's SDK sends {@code
 * /v3/identity/map}; bench/v3-map.sh). With {@code --files IN_PREFIX OUT_PREFIX COUNT}, seals the
 * JSON of the files {@code IN_PREFIX1} to {@code IN_PREFIX<COUNT>} into {@code OUT_PREFIX1} and
 * on, each under its own nonce.
 */
public class V2Seal {
  public static void main(String[] args) throws java.io.IOException {
    if (args.length >= 4 && args[1].equals("--files")) {
      sealFiles(args);
      return;
    }
    if (args.length != 2 && !(args.length == 3 && args[2].equals("binary"))) {
      System.err.println(
          "usage: V2Seal SECRET_BASE64 JSON [binary]\n"
              + "       V2Seal SECRET_BASE64 --files IN_PREFIX OUT_PREFIX COUNT [binary]");
      System.exit(2);
    }
    byte[] sealed = seal(args[0], args[1].getBytes(StandardCharsets.UTF_8), args.length == 3);
    System.out.write(sealed, 0, sealed.length);
    System.out.flush();
  }

  /** Seals IN_PREFIX1 … IN_PREFIX<COUNT> into OUT_PREFIX1 …, each with its own nonce. */
  private static void sealFiles(String[] args) throws java.io.IOException {
    int count = Integer.parseInt(args[4]);
    boolean binary = args.length == 6 && args[5].equals("binary");
    for (int i = 1; i <= count; i++) {
      byte[] json = java.nio.file.Files.readAllBytes(java.nio.file.Path.of(args[2] + i));
      java.nio.file.Files.write(java.nio.file.Path.of(args[3] + i), seal(args[0], json, binary));
    }
  }

  private static byte[] seal(String secret, byte[] json, boolean binary) {
    V2Envelope format = binary ? V2Envelope.BINARY : V2Envelope.BASE64;
    return format.sealRequest(
        json, nonce(), EnvelopeSecret.fromBase64(secret), Instant.now(), NonceSource.secure());
  }

  /** $V2SEAL_NONCE when set (so that bench/V2Open.java can open the answer), else the clock's. */
  private static long nonce() {
    String fixed = System.getenv("V2SEAL_NONCE");
    return fixed == null ? System.nanoTime() : Long.parseLong(fixed);
  }
}

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
 * /v3/identity/map}; bench/v3-map.sh).
 */
public class V2Seal {
  public static void main(String[] args) {
    if (args.length != 2 && !(args.length == 3 && args[2].equals("binary"))) {
      System.err.println("usage: V2Seal SECRET_BASE64 JSON [binary]");
      System.exit(2);
    }
    V2Envelope format = args.length == 3 ? V2Envelope.BINARY : V2Envelope.BASE64;
    byte[] sealed =
        format.sealRequest(
            args[1].getBytes(StandardCharsets.UTF_8),
            nonce(),
            EnvelopeSecret.fromBase64(args[0]),
            Instant.now(),
            NonceSource.secure());
    System.out.write(sealed, 0, sealed.length);
    System.out.flush();
  }

  /** $V2SEAL_NONCE when set (so that bench/V2Open.java can open the answer), else the clock's. */
  private static long nonce() {
    String fixed = System.getenv("V2SEAL_NONCE");
    return fixed == null ? System.nanoTime() : Long.parseLong(fixed);
  }
}

import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Prints a v2 request envelope (base64) of a JSON body under a client's secret, stamped now, for
 * load tests of the v2 endpoints (bench/v2-tokens.sh). The envelope stays valid for about two
 * minutes (the server's window). Run with veil-core on the class path:
 * {@code java -cp veil-cli/target/lib/veil-core-*.jar bench/V2Seal.java SECRET JSON}
 */
public class V2Seal {
  public static void main(String[] args) {
    if (args.length != 2) {
      System.err.println("usage: V2Seal SECRET_BASE64 JSON");
      System.exit(2);
    }
    byte[] sealed =
        V2Envelope.BASE64.sealRequest(
            args[1].getBytes(StandardCharsets.UTF_8),
            System.nanoTime(),
            EnvelopeSecret.fromBase64(args[0]),
            Instant.now(),
            NonceSource.secure());
    System.out.print(new String(sealed, StandardCharsets.US_ASCII));
  }
}

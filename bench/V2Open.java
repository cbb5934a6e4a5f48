import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import java.io.IOException;

/**
 * Prints the JSON of a sealed v2 answer (base64, on standard input) to a request that {@code
 * V2SEAL_NONCE=N bench/V2Seal.java} sealed, to check what the load answers hold
 * (bench/v3-map.sh). Run with veil-core on the class path: {@code java -cp
 * veil-cli/target/lib/veil-core-*.jar bench/V2Open.java SECRET NONCE <answer}
 */
public class V2Open {
  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: V2Open SECRET_BASE64 NONCE <answer");
      System.exit(2);
    }
    byte[] json =
        V2Envelope.BASE64
            .openResponse(
                System.in.readAllBytes(),
                EnvelopeSecret.fromBase64(args[0]),
                Long.parseLong(args[1]))
            .payloadBytes();
    System.out.write(json, 0, json.length);
    System.out.flush();
  }
}

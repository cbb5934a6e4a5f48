package dev.veil.cli;

import dev.veil.cli.map.ServerOptions;
import dev.veil.sdk.DecryptionResult;
import dev.veil.sdk.TokenDecryptor;
import dev.veil.sdk.VeilApiException;
import dev.veil.sdk.VeilClient;
import dev.veil.sdk.VeilTransportException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code veil decrypt TOKEN}: what a bidder sees in an advertising token, for debugging. Fetches
 * the keys once ({@code ID_READER} key), decrypts locally, prints the fields or why the token is
 * rejected. With the client's secret ({@code VEIL_CLIENT_SECRET} or {@code --client-secret}) the
 * keys come from {@code /v2/key/bidstream} and the bidder checks of v2 apply, the domain check
 * ({@code --domain}) among them.
 */
@Command(
    name = "decrypt",
    mixinStandardHelpOptions = true,
    version = Main.VERSION,
    description = {
      "Decrypt an advertising token as a bidder would (needs an API key with the ID_READER role).",
      "Prints the advertising id, site id, established, created and expiry times, or why it is"
          + " rejected. With the client's secret the keys come from /v2/key/bidstream, and the"
          + " server's rules for bidders (sites' permissions, token lifetime, domains) apply."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:decrypted",
      "1:the server refused the key request",
      "2:usage error",
      "3:cannot reach the server",
      "4:the token was rejected (expired, tampered, unknown key, not authorized, invalid"
          + " lifetime, domain check failed, ...)"
    })
public final class DecryptCommand implements Callable<Integer> {
  static final int REJECTED = 4;
  static final String SECRET_ENV = ServerOptions.SECRET_ENV;

  @Spec CommandSpec spec;

  @Mixin ServerOptions server;

  @Parameters(
      paramLabel = "TOKEN",
      description = "The advertising token, or - to read it from stdin.")
  String token;

  @Option(names = "--json", description = "Print the result as JSON.")
  boolean json;

  @Option(
      names = "--client-secret",
      paramLabel = "SECRET",
      description =
          "The client's secret, as veil admin client create prints it (default: $"
              + SECRET_ENV
              + "): fetch the keys over v2 and apply its checks.")
  String clientSecret;

  @Option(
      names = "--domain",
      paramLabel = "NAME",
      description =
          "Also require the token's site to list this domain or app name (needs the secret).")
  String domain;

  /** The secret from the option or the environment, or null. */
  private String clientSecret() {
    return clientSecret != null ? clientSecret : ServerOptions.clientSecret();
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (server.apiKey() == null) {
      err.println("veil decrypt: " + ServerOptions.missingKey("ID_READER"));
      return 2;
    }
    String secret = clientSecret();
    if (domain != null && secret == null) {
      err.println(
          "veil decrypt: --domain needs the client's secret (set "
              + SECRET_ENV
              + " or give --client-secret): only the v2 key answer names the sites' domains");
      return 2;
    }
    String text;
    try {
      text = token.equals("-") ? readStdin() : token;
    } catch (IOException e) {
      err.println("veil decrypt: cannot read the token from stdin: " + e.getMessage());
      return 2;
    }
    DecryptionResult result;
    Clock clock = Clock.systemUTC();
    try {
      VeilClient client =
          VeilClient.builder()
              .baseUrl(server.url())
              .apiKey(server.apiKey())
              .clientSecret(secret)
              .build();
      try (TokenDecryptor decryptor = client.tokenDecryptor().clock(clock).build()) {
        decryptor.refreshKeys();
        result =
            domain == null
                ? decryptor.decrypt(text.strip())
                : decryptor.decrypt(text.strip(), domain);
      }
    } catch (IllegalArgumentException e) {
      err.println(
          "veil decrypt: "
              + ServerOptions.inOptionTerms(e).replace("clientSecret", "--client-secret"));
      return 2;
    } catch (VeilApiException e) {
      err.println("veil decrypt: the server refused the key request: " + e.getMessage());
      return 1;
    } catch (VeilTransportException e) {
      err.println("veil decrypt: cannot reach " + server.url() + ": " + e.getMessage());
      return 3;
    }
    print(out, fields(result, clock.instant()));
    out.flush();
    return result.isSuccess() ? 0 : REJECTED;
  }

  /** The fields to print, in order; numbers stay numbers, for JSON. */
  private static Map<String, Object> fields(DecryptionResult r, Instant now) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("status", r.status().name());
    if (!r.isSuccess()) {
      f.put("reason", r.reason());
      return f;
    }
    f.put("advertising_id", r.advertisingId());
    f.put("site_id", r.siteId());
    f.put("identity_type", r.identityType().name());
    f.put("established", r.established().toString());
    f.put("created", r.created().toString());
    f.put("expires", r.expires().toString());
    f.put("expires_in", hoursAndMinutes(Duration.between(now, r.expires())));
    return f;
  }

  private void print(PrintWriter out, Map<String, Object> fields) {
    if (json) {
      StringBuilder b = new StringBuilder("{");
      fields.forEach(
          (k, v) -> {
            b.append(b.length() > 1 ? "," : "").append('"').append(k).append("\":");
            if (v instanceof Integer) {
              b.append(v);
            } else {
              b.append('"')
                  .append(v.toString().replace("\\", "\\\\").replace("\"", "\\\""))
                  .append('"');
            }
          });
      out.println(b.append('}'));
    } else {
      fields.forEach((k, v) -> out.printf("%-15s %s%n", k.replace('_', ' '), v));
    }
  }

  private static String readStdin() throws IOException {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line = in.readLine();
    return line == null ? "" : line;
  }

  /** E.g. {@code 71h 59m}. */
  private static String hoursAndMinutes(Duration d) {
    long minutes = d.toMinutes();
    return minutes >= 60 ? (minutes / 60) + "h " + (minutes % 60) + "m" : minutes + "m";
  }
}

package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.testing.AdminCli;
import dev.veil.testing.Await;
import dev.veil.testing.Http;
import dev.veil.testing.ServerProcess;
import dev.veil.testing.WebhookReceiver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/spec.md 9: no email, phone, hash, token, key or salt in any log line. Runs a full scenario
 * against a real process with the access log on, captures everything it prints, and searches it for
 * every sensitive value the scenario used or received. The admin key printed once in the start
 * banner is the one deliberate exception (docs/spec.md 0) and is not part of the search.
 */
class LogHygieneIT {
  @TempDir Path dataDir;

  @Test
  void fullScenario_leavesNoSensitiveValueInTheOutput() throws Exception {
    List<String> secrets = new ArrayList<>();
    List<String> output;
    try (ServerProcess server =
        ServerProcess.start(
            dataDir,
            "--set",
            "salt.buckets=1024",
            "--set",
            "log.access=true",
            "--set",
            "jobs.interval=1s")) {
      String adminKey = Files.readString(dataDir.resolve("admin.key")).strip();
      String key =
          AdminCli.createClient(
              server.grpcPort(), adminKey, "everything", "GENERATOR,MAPPER,OPTOUT,ID_READER");
      secrets.add(key);
      secrets.add(key.substring(17));
      Http http = new Http(server.baseUrl());

      String email = "Secret.Person+tag@Example.com";
      String normalized = "secret.person+tag@example.com";
      String phone = "+15551234567";
      String emailHash = IdentityHash.parse(IdentityInput.EMAIL, email).toBase64();
      secrets.addAll(
          List.of(
              email,
              normalized,
              "secret.person",
              phone,
              emailHash,
              Http.encode(emailHash),
              HexFormat.of().formatHex(IdentityHash.parse(IdentityInput.EMAIL, email).toBytes())));

      JsonNode gen = http.get("/v1/token/generate?email=" + Http.encode(email), key).successBody();
      String adToken = gen.get("advertising_token").asText();
      String refreshToken = gen.get("refresh_token").asText();
      secrets.addAll(List.of(adToken, refreshToken, Http.encode(refreshToken)));
      JsonNode genPhone =
          http.post("/v1/token/generate", key, "{\"phone\":\"" + phone + "\"}").successBody();
      secrets.add(genPhone.get("advertising_token").asText());

      JsonNode refreshed =
          http.get("/v1/token/refresh?refresh_token=" + Http.encode(refreshToken), null)
              .successBody();
      secrets.add(refreshed.get("advertising_token").asText());
      secrets.add(refreshed.get("refresh_token").asText());
      http.get(
          "/v1/token/refresh?refresh_token=" + Http.encode(refreshToken.substring(0, 40) + "AAAA"),
          key);
      http.get(
          "/v1/token/validate?token="
              + Http.encode(adToken)
              + "&email_hash="
              + Http.encode(emailHash),
          key);

      JsonNode mapped = http.get("/v1/identity/map?email=" + Http.encode(email), key).successBody();
      secrets.add(mapped.get("advertising_id").asText());
      JsonNode batch =
          http.post(
                  "/v1/identity/map",
                  key,
                  "{\"email_hash\":[\"" + emailHash + "\",\"not-a-hash\"]}")
              .successBody();
      secrets.add(batch.get("mapped").get(0).get("advertising_id").asText());
      http.get("/v1/identity/map?email=not-an-email-" + "hidden", key);
      secrets.add("not-an-email-hidden");
      http.get("/v1/identity/buckets?since_timestamp=2020-01-01T00:00:00", key);

      for (JsonNode k : http.get("/v1/key/latest", key).successBody()) {
        secrets.add(k.get("secret").asText());
      }
      // An opt-out webhook whose receiver fails once: its secret, its URL's token and the
      // advertising id it receives stay out of the log, while the failure is logged.
      try (WebhookReceiver receiver = WebhookReceiver.start(java.time.Duration.ofSeconds(1))) {
        AdminCli.Result hook =
            AdminCli.run(
                server.grpcPort(),
                adminKey,
                "webhooks",
                "register",
                "--client-id",
                "2",
                "--url",
                receiver.url() + "?token=hidden-receiver-token",
                "--secret-only");
        assertThat(hook.exitCode()).as(hook.out()).isZero();
        String hookSecret = hook.out().lines().findFirst().orElseThrow().strip();
        secrets.addAll(List.of(hookSecret, "hidden-receiver-token"));
        receiver.verifyWith(hookSecret);
        receiver.failNext(1);
        http.post("/v1/optout", key, "{\"phone\":\"" + phone + "\"}");
        Await.until(
            java.time.Duration.ofSeconds(30),
            "the webhook receives the opt-out",
            () -> !receiver.accepted().isEmpty());
        String delivered = receiver.accepted().get(0).advertisingId();
        secrets.addAll(List.of(delivered, Http.encode(delivered)));
      }

      // The v2 API: the client's secret (client 2, after the bootstrapped admin), sealed map and
      // buckets requests and answers, and envelopes that do not open.
      AdminCli.Result rotated =
          AdminCli.run(
              server.grpcPort(), adminKey, "client", "rotate-secret", "2", "--secret-only");
      assertThat(rotated.exitCode()).as(rotated.out()).isZero();
      String secret = rotated.out().lines().findFirst().orElseThrow().strip();
      secrets.add(secret);
      EnvelopeSecret envelopeKey = EnvelopeSecret.fromBase64(secret);
      String sealed =
          new String(
              V2Envelope.BASE64.sealRequest(
                  ("{\"email\":[\"" + email + "\"]}").getBytes(StandardCharsets.UTF_8),
                  99,
                  envelopeKey,
                  Instant.now(),
                  NonceSource.secure()),
              StandardCharsets.US_ASCII);
      secrets.add(sealed);
      Http.Response v2 = http.post("/v2/identity/map", key, sealed);
      assertThat(v2.code()).as(v2.body()).isEqualTo(200);
      secrets.add(v2.body());
      http.post("/v2/identity/map", key, sealed.substring(0, sealed.length() - 8) + "AAAAAAAA");
      http.post("/v2/identity/map", key, "not base64: " + email);
      // The v2 key endpoints: their sealed answers hold every key the client may read.
      String sealedKeys =
          new String(
              V2Envelope.BASE64.sealRequest(
                  new byte[0], 98, envelopeKey, Instant.now(), NonceSource.secure()),
              StandardCharsets.US_ASCII);
      secrets.add(sealedKeys);
      Http.Response bidstream = http.post("/v2/key/bidstream", key, sealedKeys);
      assertThat(bidstream.code()).as(bidstream.body()).isEqualTo(200);
      secrets.add(bidstream.body());
      AdminCli.run(server.grpcPort(), adminKey, "sites", "share", "2", "--sites", "3");
      String sealedBuckets =
          new String(
              V2Envelope.BASE64.sealRequest(
                  "{\"since_timestamp\":\"2020-01-01T00:00:00\"}".getBytes(StandardCharsets.UTF_8),
                  97,
                  envelopeKey,
                  Instant.now(),
                  NonceSource.secure()),
              StandardCharsets.US_ASCII);
      secrets.add(sealedBuckets);
      Http.Response buckets = http.post("/v2/identity/buckets", key, sealedBuckets);
      assertThat(buckets.code()).as(buckets.body()).isEqualTo(200);
      secrets.add(buckets.body().substring(0, 64));
      char changed = sealedBuckets.charAt(40) == 'A' ? 'B' : 'A';
      http.post(
          "/v2/identity/buckets",
          key,
          sealedBuckets.substring(0, 40) + changed + sealedBuckets.substring(41));
      AdminCli.run(
          server.grpcPort(), adminKey, "optout", "record", "--email", "admin.side@example.com");
      AdminCli.run(
          server.grpcPort(), adminKey, "optout", "lookup", "--email", "admin.side@example.com");
      secrets.add("admin.side@example.com");
      AdminCli.run(server.grpcPort(), adminKey, "salts", "rotate", "--fraction", "0.5");
      AdminCli.run(server.grpcPort(), adminKey, "keys", "rotate");

      assertThat(server.terminate(Duration.ofSeconds(30))).isNotEqualTo(-1);
      output = server.output();
    }
    assertThat(output).anyMatch(l -> l.contains("event=started"));
    assertThat(output).anyMatch(l -> l.contains("event=stopped"));
    assertThat(output).anyMatch(l -> l.contains("event=webhook_delivery_failed webhook=1"));
    for (String line : output) {
      for (String secret : secrets) {
        assertThat(line).as("a log line contains a sensitive value").doesNotContain(secret);
      }
    }
  }
}

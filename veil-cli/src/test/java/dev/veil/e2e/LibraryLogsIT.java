package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.veil.grpc.identity.admin.v1.CreateClientRequest;
import dev.veil.testing.IdentityAdminClient;
import dev.veil.testing.ServerProcess;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/spec.md 9 for what gRPC and Netty log through {@code java.util.logging} in a real {@code
 * veil serve}: an HTTP/1.1 request to the admin port (its request line quotes an email; gRPC logs
 * it at INFO, below the WARN that logback.xml sets for {@code io.grpc}) and an oversized message
 * (WARNING) give at most one line each, in the application's format; never the request, a message
 * text or a stack trace.
 */
class LibraryLogsIT {
  /**
   * Every line of the application's log: time (its format differs under the tests'
   * logback-test.xml), level, logger, then key=value pairs.
   */
  private static final Pattern LOG_LINE = Pattern.compile("\\S+ level=[A-Z]+ logger=\\S+ \\S.*");

  @TempDir Path dataDir;

  @Test
  void misdirectedAndOversizedRequests_logOneStructuredLineEach_withoutTheirContent()
      throws Exception {
    String email = "victim.person@example.com";
    String oversizedName = "over-" + "x".repeat(5 * 1024 * 1024);
    List<String> output;
    int startedAt;
    try (ServerProcess server = ServerProcess.start(dataDir)) {
      startedAt = server.output().size();
      String adminKey = Files.readString(dataDir.resolve("admin.key")).strip();

      http1Get(
          server.grpcPort(), "/v1/token/generate?email=" + email); // Netty answers with a GOAWAY

      try (IdentityAdminClient admin = new IdentityAdminClient(server.grpcPort(), adminKey)) {
        StatusRuntimeException tooBig =
            catchThrowableOfType(
                StatusRuntimeException.class,
                () ->
                    admin
                        .api()
                        .createClient(
                            CreateClientRequest.newBuilder()
                                .setName(oversizedName)
                                .addRoles("MAPPER")
                                .build()));
        assertThat(tooBig.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(admin.listClients().getClientsCount())
            .as("the server still serves")
            .isEqualTo(1);
      }

      assertThat(server.terminate(Duration.ofSeconds(30))).isNotEqualTo(-1);
      output = server.output();
    }
    List<String> log = output.subList(startedAt, output.size());
    assertThat(log).anyMatch(l -> l.contains("event=stopped"));
    assertThat(log)
        .as("the oversized message's WARNING, as one line")
        .anyMatch(
            l ->
                l.contains("level=WARN")
                    && l.contains("event=library_log source=io.grpc.")
                    && l.contains("exception=io.grpc.StatusRuntimeException"));
    for (String line : log) {
      assertThat(line)
          .as("every line after the start banner is a log line")
          .matches(LOG_LINE)
          .doesNotContain("victim")
          .doesNotContain("xxxxxxxx");
    }
  }

  /** Sends an HTTP/1.1 GET to {@code port} and returns what came back before the peer closed. */
  private static String http1Get(int port, String target) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }
}

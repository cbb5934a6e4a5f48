package dev.veil.cli.admin;

import dev.veil.common.Causes;
import dev.veil.observability.LibraryLogs;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * One {@code veil admin} command, whatever the admin service: resolves the key, opens a plaintext
 * channel whose calls carry {@code authorization: Bearer <key>}, runs {@link #run} and maps the
 * outcome to an exit code. Expected failures print one line to stderr, never a stack trace: {@value
 * #REFUSED} with the server's status when it said no, {@value #UNREACHABLE} when there was no
 * server to ask (nothing answered, or an HTTP server that does not speak gRPC, such as Veil's
 * public port); a missing key is a usage error (2). gRPC's own {@code java.util.logging} output is
 * silenced ({@link LibraryLogs#silence()}), so those lines are all a failure prints. Leaf commands
 * extend {@link AdminRpc} ({@code IdentityAdminApi}) or {@link DeductionRpc} ({@code
 * DeductionAdminApi}), or this class for calls that answer otherwise ({@code deduction history},
 * {@link DeductionWatch}).
 */
public abstract class AdminCall implements Callable<Integer> {
  static final int OK = 0;
  static final int REFUSED = 1;
  static final int UNREACHABLE = 3;

  /** Every call's deadline; stubs apply it with {@code withDeadlineAfter}. */
  static final long DEADLINE_SECONDS = 60;

  /** Far above any API key (about 60 characters), far below gRPC's 8 KiB metadata limit. */
  static final int MAX_KEY_LENGTH = 1024;

  /**
   * "HTTP/" in hex, as netty shows the first bytes of an answer that did not start with HTTP/2
   * settings.
   */
  private static final String HTTP1_START_IN_HEX = "485454502f";

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private static final Metadata.Key<String> REASON =
      Metadata.Key.of("x-veil-reason", Metadata.ASCII_STRING_MARSHALLER);

  /** As the server allows (docs/operators.md, "Audit trail"). */
  static final int MAX_REASON_LENGTH = 256;

  @Spec CommandSpec spec;

  /**
   * Makes the call(s) on {@code channel} (authenticated) and prints the result; returns the exit
   * code. A gRPC status thrown from here is reported by {@link #call}.
   */
  abstract int run(Channel channel, Output out);

  @Override
  public final Integer call() {
    AdminOptions options = AdminOptions.of(spec);
    if (options.port() < 1 || options.port() > 65535) {
      throw new ParameterException(spec.commandLine(), "--port must be between 1 and 65535.");
    }
    Output out =
        new Output(spec.commandLine().getOut(), spec.commandLine().getErr(), options.json());
    String key = adminKey(options);
    String reason = reasonHeader(options);
    LibraryLogs
        .silence(); // gRPC's own log lines would repeat, with a stack trace, what out.error says
    ManagedChannel channel = channel(options);
    try {
      Metadata headers = new Metadata();
      headers.put(AUTHORIZATION, "Bearer " + key);
      if (!reason.isEmpty()) {
        headers.put(REASON, reason);
      }
      return run(
          ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers)),
          out);
    } catch (StatusRuntimeException e) {
      return failed(e.getStatus(), options, out);
    } finally {
      channel.shutdownNow();
      out.flush();
    }
  }

  /**
   * A plaintext channel; a host gRPC cannot use (empty, or with a port: "h:9090") is a usage error.
   */
  private ManagedChannel channel(AdminOptions options) {
    try {
      return ManagedChannelBuilder.forAddress(options.host(), options.port())
          .usePlaintext()
          .build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(),
          "--host must be a host name or an IP address, without a port (give the port with"
              + " --port).");
    }
  }

  /**
   * {@code --reason} as the {@code x-veil-reason} metadata: UTF-8 with every byte that is not
   * printable ASCII (and {@code %}) escaped as {@code %XX}; empty for none.
   */
  private String reasonHeader(AdminOptions options) {
    String reason = options.reason();
    if (reason.codePointCount(0, reason.length()) > MAX_REASON_LENGTH) {
      throw new ParameterException(
          spec.commandLine(), "--reason is at most " + MAX_REASON_LENGTH + " characters.");
    }
    if (reason.codePoints().anyMatch(Character::isISOControl)) {
      throw new ParameterException(
          spec.commandLine(), "--reason must be one line, without control characters.");
    }
    StringBuilder header = new StringBuilder();
    for (byte b : reason.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (c > 0x20 && c < 0x7f && c != '%') {
        header.append((char) c);
      } else {
        header.append('%').append(String.format(Locale.ROOT, "%02X", c));
      }
    }
    return header.toString();
  }

  private String adminKey(AdminOptions options) {
    String key;
    try {
      key =
          options
              .key()
              .orElseThrow(
                  () ->
                      new ParameterException(
                          spec.commandLine(), "No admin key: " + AdminOptions.keySources() + "."));
    } catch (UncheckedIOException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage() + ".");
    }
    if (key.regionMatches(true, 0, "Bearer ", 0, "Bearer ".length())) {
      throw new ParameterException(
          spec.commandLine(),
          "Give the admin key without 'Bearer ': veil admin sends 'authorization: Bearer <key>'"
              + " itself.");
    }
    if (key.isEmpty() || !key.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new ParameterException(
          spec.commandLine(), "The admin key must be printable ASCII without spaces.");
    }
    if (key.length() > MAX_KEY_LENGTH) {
      // gRPC would refuse to send it (metadata over the server's 8 KiB limit) and report
      // "INTERNAL: http2 exception" as if the server had refused.
      throw new ParameterException(
          spec.commandLine(),
          "The admin key is "
              + key.length()
              + " characters long, not an API key (those have about 60): check --key,"
              + " $VEIL_ADMIN_KEY or the key file.");
    }
    return key;
  }

  private static int failed(Status status, AdminOptions options, Output out) {
    if (answeredPlainHttp(status)) {
      out.error(
          options.host()
              + ":"
              + options.port()
              + " answered HTTP, not gRPC: probably the public HTTP port"
              + " (the admin gRPC port is grpc.port, default "
              + AdminOptions.DEFAULT_PORT
              + ")");
      return UNREACHABLE;
    }
    if (isUnreachable(status)) {
      String reason =
          status.getCode() == Status.Code.DEADLINE_EXCEEDED
              ? "no answer within " + DEADLINE_SECONDS + " s"
              : Causes.rootMessage(status.getCause());
      out.error(
          "cannot connect to the admin server at "
              + options.host()
              + ":"
              + options.port()
              + ": "
              + reason);
      return UNREACHABLE;
    }
    String description = status.getDescription() == null ? "no detail" : status.getDescription();
    out.error("the server refused: " + status.getCode() + ": " + description);
    return REFUSED;
  }

  /**
   * Whether no server answered: the channel failed on this side (a connection error carries its
   * local cause; a status the server sent carries none) or no answer came before the deadline.
   */
  static boolean isUnreachable(Status status) {
    return (status.getCode() == Status.Code.UNAVAILABLE && status.getCause() != null)
        || status.getCode() == Status.Code.DEADLINE_EXCEEDED;
  }

  /**
   * Whether a server answered, but in HTTP without gRPC, so there was no admin server to ask: an
   * HTTP/1 server (Veil's public port; grpc-java expected HTTP/2 settings and got "HTTP/", which
   * netty reports in hex) or an HTTP/2 server whose answer is not gRPC (grpc-java then makes the
   * status from the HTTP status, "HTTP status code 404", followed by a dump of the headers).
   */
  static boolean answeredPlainHttp(Status status) {
    String description = status.getDescription();
    if (description != null && description.startsWith("HTTP status code ")) {
      return true;
    }
    for (Throwable e = status.getCause(); e != null; e = e.getCause() == e ? null : e.getCause()) {
      if (e.getMessage() != null
          && e.getMessage().toLowerCase(Locale.ROOT).contains(HTTP1_START_IN_HEX)) {
        return true;
      }
    }
    return false;
  }
}

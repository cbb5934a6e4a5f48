package dev.veil.testing;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * {@code buf curl} (npm {@code @bufbuild/buf}, installed by {@code npm ci --prefix
 * tools/grpc-client}) as a generic gRPC client: it knows the API only from a {@code .proto} file
 * given with {@code --schema}, or from the server's reflection service, never from Veil's Java
 * stubs. Calls go over a real socket with HTTP/2 prior knowledge and print default values, so
 * {@code code: 0} is visible.
 *
 * <p>Without the tool, {@link #locate()} skips the calling test after a loud notice on stderr, or
 * fails it when env {@value #REQUIRE_ENV} is {@code 1} (CI sets it). Exit codes: 0 when the call
 * ended with gRPC status OK (whatever {@code success} says), otherwise the gRPC code times 8.
 */
public final class BufCurl {
  public static final String REQUIRE_ENV = "VEIL_REQUIRE_TOOLS";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static volatile boolean bannerShown;

  private final Path executable;
  private final Path cacheDir;

  private BufCurl(Path executable, Path cacheDir) {
    this.executable = executable;
    this.cacheDir = cacheDir;
  }

  /** Whether {@code npm ci --prefix tools/grpc-client} has installed the tool. */
  public static boolean isInstalled() {
    return Files.isExecutable(executable());
  }

  private static Path executable() {
    return projectRoot().resolve("tools/grpc-client/node_modules/.bin/buf");
  }

  /** The tool under {@code tools/grpc-client}, or a skipped (or, with the env set, failed) test. */
  public static BufCurl locate() {
    Path buf = executable();
    if (!Files.isExecutable(buf)) {
      String reason =
          "buf curl not found at " + buf + "; install it with: npm ci --prefix tools/grpc-client";
      if ("1".equals(System.getenv(REQUIRE_ENV))) {
        fail(reason + " (" + REQUIRE_ENV + "=1 demands it)");
      }
      if (!bannerShown) {
        bannerShown = true;
        System.err.println(
            "\n**********************************************************************");
        System.err.println("* SKIPPING generic gRPC client tests: " + reason);
        System.err.println("* Set " + REQUIRE_ENV + "=1 to fail instead.");
        System.err.println(
            "**********************************************************************\n");
      }
      Assumptions.abort("generic gRPC client tests skipped: " + reason);
    }
    try {
      return new BufCurl(buf, Files.createTempDirectory("buf-cache"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The repository root: the nearest directory upwards holding {@code tools/grpc-client}. */
  public static Path projectRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("tools/grpc-client/package.json"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "no tools/grpc-client/package.json above " + Path.of("").toAbsolutePath());
  }

  /** What one run printed and how it ended. */
  public record Result(int exitCode, String out, String err) {
    /**
     * The gRPC status code the call ended with (0 OK, 16 UNAUTHENTICATED, 7 PERMISSION_DENIED...).
     */
    public int grpcCode() {
      return exitCode / 8;
    }

    /** The response printed on stdout. */
    public JsonNode json() {
      try {
        return JSON.readTree(out);
      } catch (IOException e) {
        throw new AssertionError("not JSON (exit " + exitCode + ", stderr " + err + "): " + out, e);
      }
    }
  }

  /**
   * Calls {@code method} ({@code package.Service/Method}) on a loopback port with {@code
   * requestJson} (sent on stdin).
   *
   * @param schema the {@code .proto} file that defines the API; null to use server reflection
   * @param authorization the value of the {@code authorization} header; null to send none. With
   *     reflection it goes on the reflection requests too ({@code --reflect-header '*'}), since the
   *     server's reflection needs the admin key like every admin call
   */
  public Result call(
      int port, String method, String requestJson, Path schema, String authorization) {
    List<String> args = new ArrayList<>(List.of("--emit-defaults", "-d", "@-"));
    if (schema != null) {
      args.addAll(List.of("--schema", schema.toString()));
    }
    if (authorization != null) {
      args.addAll(List.of("-H", "authorization: " + authorization));
      if (schema == null) {
        args.addAll(List.of("--reflect-header", "*"));
      }
    }
    args.add("http://127.0.0.1:" + port + "/" + method);
    return run(args, requestJson);
  }

  /**
   * {@code --list-methods} through server reflection, sending {@code authorization} (null: none) on
   * the reflection requests.
   */
  public Result listMethods(int port, String authorization) {
    List<String> args = new ArrayList<>(List.of("--list-methods"));
    if (authorization != null) {
      args.addAll(List.of("--reflect-header", "authorization: " + authorization));
    }
    args.add("http://127.0.0.1:" + port);
    return run(args, "");
  }

  private Result run(List<String> args, String stdin) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                executable.toString(),
                "curl",
                "--protocol",
                "grpc",
                "--http2-prior-knowledge",
                "--timeout",
                "30s"));
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("BUF_CACHE_DIR", cacheDir.toString());
    try {
      Process process = pb.start();
      CompletableFuture<String> out = drain(process.getInputStream());
      CompletableFuture<String> err = drain(process.getErrorStream());
      try (OutputStream in = process.getOutputStream()) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("buf curl did not finish within 60 s: " + cmd);
      }
      return new Result(
          process.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + executable, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    } catch (Exception e) {
      throw new AssertionError("buf curl output unreadable", e);
    }
  }

  private static CompletableFuture<String> drain(InputStream stream) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (stream) {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }
}

package dev.veil.testing;

import dev.veil.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs {@code veil admin ...} in-process against a server and captures what it prints. */
public final class AdminCli {
  private static final Pattern API_KEY =
      Pattern.compile("vk1\\.[A-Za-z0-9_-]{12}\\.[A-Za-z0-9_-]{43}");

  private AdminCli() {}

  public record Result(int exitCode, String out) {}

  public static synchronized Result run(int grpcPort, String adminKey, String... args) {
    List<String> all = new ArrayList<>(List.of("admin"));
    all.addAll(List.of(args));
    all.addAll(List.of("--port", Integer.toString(grpcPort), "--key", adminKey));
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    PrintStream capture = new PrintStream(buffer, true, StandardCharsets.UTF_8);
    System.setOut(capture);
    System.setErr(capture);
    try {
      int code = Main.run(all.toArray(String[]::new));
      return new Result(code, buffer.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }

  /** Creates a client with the given roles (comma-separated) and returns its API key. */
  public static String createClient(int grpcPort, String adminKey, String name, String roles) {
    Result r = run(grpcPort, adminKey, "client", "create", "--name", name, "--roles", roles);
    Matcher m = API_KEY.matcher(r.out());
    if (r.exitCode() != 0 || !m.find()) {
      throw new IllegalStateException("client create failed (" + r.exitCode() + "): " + r.out());
    }
    return m.group();
  }
}

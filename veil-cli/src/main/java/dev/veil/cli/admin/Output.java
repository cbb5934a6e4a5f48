package dev.veil.cli.admin;

import com.google.protobuf.MessageOrBuilder;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.Consumer;

/**
 * Where a command's answer goes: the response as JSON ({@code --json}) or as text on stdout;
 * warnings and errors on stderr, so that stdout stays machine-readable.
 */
final class Output {
  private final PrintWriter out;
  private final PrintWriter err;
  private final boolean json;

  Output(PrintWriter out, PrintWriter err, boolean json) {
    this.out = out;
    this.err = err;
    this.json = json;
  }

  /** Prints {@code response} as JSON, or lets {@code text} print it for people. */
  void print(MessageOrBuilder response, Consumer<PrintWriter> text) {
    if (json) {
      out.println(ProtoJson.write(response));
    } else {
      text.accept(out);
    }
  }

  /** One line on stdout, whatever the format. */
  void line(String text) {
    out.println(text);
  }

  void warn(String message) {
    err.println("warning: " + message);
  }

  void error(String message) {
    err.println("veil admin: " + message);
  }

  void flush() {
    out.flush();
    err.flush();
  }

  /** Epoch millis as an ISO-8601 UTC time to the second; "-" for 0 (unset). */
  static String time(long epochMillis) {
    return epochMillis == 0
        ? "-"
        : Instant.ofEpochMilli(epochMillis).truncatedTo(ChronoUnit.SECONDS).toString();
  }
}

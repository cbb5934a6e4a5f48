package dev.veil.cli.admin;

import com.google.protobuf.MessageOrBuilder;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

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

  /**
   * One message of a stream as one line on stdout: compact JSON with {@code --json} (JSON Lines),
   * otherwise {@code text}. Flushed at once, so that a program reading the output through a pipe
   * gets each line as it is printed.
   *
   * @return false if the output is gone (a pipe whose reader ended): nothing more can be printed
   */
  boolean streamed(MessageOrBuilder message, Supplier<String> text) {
    out.println(json ? ProtoJson.line(message) : text.get());
    out.flush();
    // picocli's writer wraps System.out, which keeps a failed write to itself: ask it too.
    return !out.checkError() && !System.out.checkError();
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

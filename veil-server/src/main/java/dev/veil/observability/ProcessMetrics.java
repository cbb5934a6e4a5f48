package dev.veil.observability;

import com.sun.management.UnixOperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.RuntimeMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The process's CPU time, start time, uptime, file descriptors and memory, read when {@link
 * Metrics#scrape()} runs, under the names of the Prometheus client libraries' process metrics:
 * {@code process_cpu_seconds_total}, {@code process_start_time_seconds} (Unix time), {@code
 * process_uptime_seconds}, {@code process_open_fds}, {@code process_max_fds}, {@code
 * process_resident_memory_bytes} and {@code process_virtual_memory_bytes}.
 *
 * <p>CPU time and descriptors come from the JDK's {@code com.sun.management} beans; memory from
 * {@code /proc/self/status} (Linux; a small file the kernel writes on read, no disk). A figure the
 * platform does not give is left out of the scrape rather than shown as 0. Thread-safe.
 */
public final class ProcessMetrics {
  private static final Path STATUS = Path.of("/proc/self/status");

  private final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
  private final RuntimeMXBean runtime = ManagementFactory.getRuntimeMXBean();

  private ProcessMetrics() {}

  /** Adds the process's families to every scrape of {@code metrics}. */
  public static void register(Metrics metrics) {
    metrics.collector(new ProcessMetrics()::write);
  }

  void write(StringBuilder out) {
    if (os instanceof com.sun.management.OperatingSystemMXBean sun
        && sun.getProcessCpuTime() >= 0) {
      Metrics.appendHelp(
          out, "process_cpu_seconds_total", "User and system CPU time of the process.", "counter");
      Metrics.appendSample(out, "process_cpu_seconds_total", "", sun.getProcessCpuTime() / 1e9);
    }
    gauge(
        out,
        "process_start_time_seconds",
        "When the process started, in seconds since the Unix epoch.",
        runtime.getStartTime() / 1000.0);
    gauge(
        out,
        "process_uptime_seconds",
        "Seconds since the process started.",
        runtime.getUptime() / 1000.0);
    if (os instanceof UnixOperatingSystemMXBean unix) {
      gauge(
          out,
          "process_open_fds",
          "Open file descriptors.",
          (double) unix.getOpenFileDescriptorCount());
      gauge(
          out,
          "process_max_fds",
          "Limit of open file descriptors.",
          (double) unix.getMaxFileDescriptorCount());
    }
    String status = procStatus();
    long resident = kilobytes(status, "VmRSS:");
    if (resident >= 0) {
      gauge(
          out,
          "process_resident_memory_bytes",
          "Resident memory of the process.",
          (double) (resident * 1024));
    }
    long virtual = kilobytes(status, "VmSize:");
    if (virtual >= 0) {
      gauge(
          out,
          "process_virtual_memory_bytes",
          "Virtual memory of the process.",
          (double) (virtual * 1024));
    }
  }

  private static String procStatus() {
    try {
      return Files.readString(STATUS, StandardCharsets.US_ASCII);
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return ""; // not Linux, or /proc not mounted: the memory figures are left out
    }
  }

  /** The value of a {@code Key: 123 kB} line of {@code /proc/self/status}, or -1. */
  static long kilobytes(String status, String key) {
    for (String line : status.split("\n")) {
      if (line.startsWith(key) && line.endsWith(" kB")) {
        try {
          return Long.parseLong(line.substring(key.length(), line.length() - 3).trim());
        } catch (NumberFormatException e) {
          return -1;
        }
      }
    }
    return -1;
  }

  private static void gauge(StringBuilder out, String name, String help, double value) {
    Metrics.appendHelp(out, name, help, "gauge");
    Metrics.appendSample(out, name, "", value);
  }
}

package dev.veil.observability;

import java.lang.management.ClassLoadingMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The JVM's memory, garbage collection, threads and classes, read from its management beans when
 * {@link Metrics#scrape()} runs, under the names of the Prometheus Java client's JVM metrics:
 * {@code jvm_memory_used_bytes}, {@code jvm_memory_committed_bytes} and {@code
 * jvm_memory_max_bytes} by {@code area} ({@code heap}, {@code nonheap}; max is -1 when the JVM sets
 * none), {@code jvm_gc_collection_seconds} (a summary: collections and their total time by {@code
 * gc}, the collector's name), {@code jvm_threads_current}, {@code _daemon}, {@code _peak}, {@code
 * jvm_threads_started_total}, {@code jvm_threads_state} by {@code state}, and {@code
 * jvm_classes_currently_loaded}.
 *
 * <p>Nothing is recorded between scrapes: the beans keep these figures anyway. A scrape reads the
 * state of every thread (without stack traces), which takes well under a millisecond for the few
 * dozen threads of a node. Thread-safe.
 */
public final class JvmMetrics {
  private static final List<String> AREA = List.of("area");
  private static final List<String> GC = List.of("gc");
  private static final List<String> STATE = List.of("state");

  private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
  private final List<GarbageCollectorMXBean> collectors =
      ManagementFactory.getGarbageCollectorMXBeans();
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final ClassLoadingMXBean classes = ManagementFactory.getClassLoadingMXBean();

  private JvmMetrics() {}

  /** Adds the JVM's families to every scrape of {@code metrics}. */
  public static void register(Metrics metrics) {
    metrics.collector(new JvmMetrics()::write);
  }

  void write(StringBuilder out) {
    writeMemory(out);
    writeGc(out);
    writeThreads(out);
    gauge(
        out,
        "jvm_classes_currently_loaded",
        "Classes currently loaded in the JVM.",
        "",
        classes.getLoadedClassCount());
  }

  private void writeMemory(StringBuilder out) {
    MemoryUsage heap = memory.getHeapMemoryUsage();
    MemoryUsage nonHeap = memory.getNonHeapMemoryUsage();
    String heapLabel = Metrics.labels(AREA, List.of("heap"));
    String nonHeapLabel = Metrics.labels(AREA, List.of("nonheap"));
    Metrics.appendHelp(out, "jvm_memory_used_bytes", "Used bytes of a JVM memory area.", "gauge");
    Metrics.appendSample(out, "jvm_memory_used_bytes", heapLabel, (double) heap.getUsed());
    Metrics.appendSample(out, "jvm_memory_used_bytes", nonHeapLabel, (double) nonHeap.getUsed());
    Metrics.appendHelp(
        out, "jvm_memory_committed_bytes", "Committed bytes of a JVM memory area.", "gauge");
    Metrics.appendSample(
        out, "jvm_memory_committed_bytes", heapLabel, (double) heap.getCommitted());
    Metrics.appendSample(
        out, "jvm_memory_committed_bytes", nonHeapLabel, (double) nonHeap.getCommitted());
    Metrics.appendHelp(
        out,
        "jvm_memory_max_bytes",
        "Maximum bytes of a JVM memory area (-1: no limit set).",
        "gauge");
    Metrics.appendSample(out, "jvm_memory_max_bytes", heapLabel, (double) heap.getMax());
    Metrics.appendSample(out, "jvm_memory_max_bytes", nonHeapLabel, (double) nonHeap.getMax());
  }

  private void writeGc(StringBuilder out) {
    Metrics.appendHelp(
        out,
        "jvm_gc_collection_seconds",
        "Time spent in a garbage collector's collections.",
        "summary");
    for (GarbageCollectorMXBean gc : collectors) {
      String label = Metrics.labels(GC, List.of(gc.getName()));
      Metrics.appendSample(
          out,
          "jvm_gc_collection_seconds_count",
          label,
          (double) Math.max(0, gc.getCollectionCount()));
      Metrics.appendSample(
          out,
          "jvm_gc_collection_seconds_sum",
          label,
          Math.max(0, gc.getCollectionTime()) / 1000.0);
    }
  }

  private void writeThreads(StringBuilder out) {
    gauge(
        out,
        "jvm_threads_current",
        "Current thread count of the JVM.",
        "",
        threads.getThreadCount());
    gauge(
        out,
        "jvm_threads_daemon",
        "Daemon thread count of the JVM.",
        "",
        threads.getDaemonThreadCount());
    gauge(
        out, "jvm_threads_peak", "Peak thread count of the JVM.", "", threads.getPeakThreadCount());
    Metrics.appendHelp(
        out, "jvm_threads_started_total", "Threads started since the JVM started.", "counter");
    Metrics.appendSample(
        out, "jvm_threads_started_total", "", (double) threads.getTotalStartedThreadCount());
    Map<Thread.State, Integer> states = new EnumMap<>(Thread.State.class);
    for (Thread.State state : Thread.State.values()) {
      states.put(state, 0);
    }
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds(), 0)) {
      if (info != null) { // a thread that ended meanwhile
        states.merge(info.getThreadState(), 1, Integer::sum);
      }
    }
    Metrics.appendHelp(out, "jvm_threads_state", "Threads of the JVM by state.", "gauge");
    states.forEach(
        (state, n) ->
            Metrics.appendSample(
                out, "jvm_threads_state", Metrics.labels(STATE, List.of(state.name())), n));
  }

  private static void gauge(
      StringBuilder out, String name, String help, String labels, double value) {
    Metrics.appendHelp(out, name, help, "gauge");
    Metrics.appendSample(out, name, labels, value);
  }
}

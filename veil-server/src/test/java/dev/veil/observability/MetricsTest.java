package dev.veil.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MetricsTest {
  @Test
  void requestSeries_countAndCumulativeHistogramPerStatus() {
    Metrics metrics = new Metrics();
    RequestMetrics route = metrics.httpRequests("/v1/x", "GET");
    route.record(200, TimeUnit.MICROSECONDS.toNanos(300));
    route.record(200, TimeUnit.MILLISECONDS.toNanos(3));
    route.record(400, TimeUnit.SECONDS.toNanos(20));

    String text = metrics.scrape();

    assertThat(text)
        .contains("# TYPE veil_http_requests_total counter\n")
        .contains("veil_http_requests_total{route=\"/v1/x\",method=\"GET\",status=\"200\"} 2\n")
        .contains("veil_http_requests_total{route=\"/v1/x\",method=\"GET\",status=\"400\"} 1\n")
        .contains("# TYPE veil_http_request_duration_seconds histogram\n")
        .contains(
            "veil_http_request_duration_seconds_bucket{route=\"/v1/x\","
                + "method=\"GET\",status=\"200\",le=\"0.0005\"}"
                + " 1\n")
        .contains(
            "veil_http_request_duration_seconds_bucket{route=\"/v1/x\","
                + "method=\"GET\",status=\"200\",le=\"0.0025\"}"
                + " 1\n")
        .contains(
            "veil_http_request_duration_seconds_bucket{route=\"/v1/x\","
                + "method=\"GET\",status=\"200\",le=\"0.005\"}"
                + " 2\n")
        .contains(
            "veil_http_request_duration_seconds_bucket{route=\"/v1/x\","
                + "method=\"GET\",status=\"200\",le=\"+Inf\"}"
                + " 2\n")
        .contains(
            "veil_http_request_duration_seconds_sum{route=\"/v1/x\",method=\"GET\",status=\"200\"}"
                + " 0.0033\n")
        .contains(
            "veil_http_request_duration_seconds_bucket{route=\"/v1/x\","
                + "method=\"GET\",status=\"400\",le=\"10\"}"
                + " 0\n")
        .contains(
            "veil_http_request_duration_seconds_bucket{route=\"/v1/x\","
                + "method=\"GET\",status=\"400\",le=\"+Inf\"}"
                + " 1\n")
        .contains(
            "veil_http_request_duration_seconds_count{route=\"/v1/x\","
                + "method=\"GET\",status=\"400\"}"
                + " 1\n");
    assertThat(route.count(200)).isEqualTo(2);
  }

  @Test
  void httpRequests_sameRouteAndMethod_isTheSameHandle() {
    Metrics metrics = new Metrics();

    assertThat(metrics.httpRequests("/a", "GET")).isSameAs(metrics.httpRequests("/a", "GET"));
    assertThat(metrics.httpRequests("/a", "GET")).isNotSameAs(metrics.httpRequests("/a", "POST"));
  }

  @Test
  void statusOutsideTheRange_isCountedAs599() {
    Metrics metrics = new Metrics();
    metrics.httpRequests("/a", "GET").record(42, 1);

    assertThat(metrics.httpRequests("/a", "GET").count(599)).isEqualTo(1);
  }

  @Test
  void countersAndGauges_areRenderedWithHelpAndType() {
    Metrics metrics = new Metrics();
    Counter counter = metrics.counter("veil_optouts_total", "Opt-outs recorded.");
    counter.inc();
    counter.add(2);
    metrics.gauge("veil_keys", "Keys held.\nIn memory.", () -> 7);

    assertThat(metrics.scrape())
        .contains(
            "# HELP veil_optouts_total Opt-outs recorded.\n"
                + "# TYPE veil_optouts_total counter\n"
                + "veil_optouts_total 3\n")
        .contains(
            "# HELP veil_keys Keys held.\\nIn memory.\n# TYPE veil_keys gauge\nveil_keys 7\n");
    assertThat(metrics.counter("veil_optouts_total", "x")).isSameAs(counter);
  }

  @Test
  void invalidNamesAndNegativeIncrements_areRefused() {
    Metrics metrics = new Metrics();

    assertThatThrownBy(() -> metrics.counter("bad name", ""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> metrics.counter("ok_total", "").add(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void labelValues_areEscaped() {
    Metrics metrics = new Metrics();
    metrics.httpRequests("/a\"b\\c", "GET").record(200, 1);

    assertThat(metrics.scrape()).contains("route=\"/a\\\"b\\\\c\"");
  }

  @Test
  void recording_fromManyThreads_losesNothing() throws Exception {
    Metrics metrics = new Metrics();
    RequestMetrics route = metrics.httpRequests("/a", "POST");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    for (int t = 0; t < 4; t++) {
      pool.execute(
          () -> {
            for (int i = 0; i < 10_000; i++) {
              route.record(200 + (i % 2), i);
            }
          });
    }
    pool.shutdown();
    assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();

    assertThat(route.count(200) + route.count(201)).isEqualTo(40_000);
  }

  @Test
  void counterFamily_writesOneHelpAndTypeThenEachMemberWithItsLabels() {
    Metrics metrics = new Metrics();
    CounterFamily calls = metrics.counterFamily("veil_calls_total", "Calls.", "method", "code");
    Counter ok = calls.labels("a/B", "OK");
    calls.labels("a/\"C", "NOT_FOUND").add(2);
    ok.inc();

    assertThat(metrics.scrape())
        .contains(
            "# HELP veil_calls_total Calls.\n# TYPE veil_calls_total counter\n"
                + "veil_calls_total{method=\"a/B\",code=\"OK\"} 1\n"
                + "veil_calls_total{method=\"a/\\\"C\",code=\"NOT_FOUND\"} 2\n");
    assertThat(calls.labels("a/B", "OK")).isSameAs(ok);
    assertThat(metrics.counterFamily("veil_calls_total", "x", "method", "code")).isSameAs(calls);
  }

  @Test
  void counterFamily_refusesWrongLabelsAndValueCounts() {
    Metrics metrics = new Metrics();
    CounterFamily family = metrics.counterFamily("veil_x_total", "", "outcome");

    assertThatThrownBy(() -> family.labels("a", "b")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> metrics.counterFamily("veil_x_total", "", "other"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> metrics.counterFamily("veil_y_total", "", "bad-label"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void counterOf_readsItsValueAtEachScrape() {
    Metrics metrics = new Metrics();
    java.util.concurrent.atomic.AtomicLong recorded = new java.util.concurrent.atomic.AtomicLong(4);
    metrics.counterOf("veil_things_total", "Things.", recorded::get);

    assertThat(metrics.scrape())
        .contains("# TYPE veil_things_total counter\nveil_things_total 4\n");
    recorded.set(9);
    assertThat(metrics.scrape()).contains("veil_things_total 9\n");
  }

  @Test
  void runtimeFamilies_areWrittenOnceEachWithATypeLine() {
    Metrics metrics = new Metrics();
    JvmMetrics.register(metrics);
    ProcessMetrics.register(metrics);
    BuildInfo.register(metrics, "veil");

    dev.veil.testing.Scrape scrape = dev.veil.testing.Scrape.parse(metrics.scrape());

    assertThat(scrape.type("jvm_memory_used_bytes")).isEqualTo("gauge");
    assertThat(scrape.type("jvm_gc_collection_seconds")).isEqualTo("summary");
    assertThat(scrape.type("jvm_threads_started_total")).isEqualTo("counter");
    assertThat(scrape.type("process_start_time_seconds")).isEqualTo("gauge");
    assertThat(scrape.type("veil_build_info")).isEqualTo("gauge");
    assertThat(BuildInfo.version()).isNotEqualTo("unknown").doesNotContain("${");
  }

  @Test
  void procStatus_kilobytesOfAKey() {
    String status = "Name:\tjava\nVmSize:\t 4012345 kB\nVmRSS:\t  123456 kB\nThreads:\t40\n";

    assertThat(ProcessMetrics.kilobytes(status, "VmRSS:")).isEqualTo(123_456);
    assertThat(ProcessMetrics.kilobytes(status, "VmSize:")).isEqualTo(4_012_345);
    assertThat(ProcessMetrics.kilobytes(status, "VmSwap:")).isEqualTo(-1);
    assertThat(ProcessMetrics.kilobytes(status, "Threads:")).isEqualTo(-1);
    assertThat(ProcessMetrics.kilobytes("", "VmRSS:")).isEqualTo(-1);
  }
}

package dev.veil.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Writes why tests were skipped to {@value #FILE}, one paragraph per reason with the tests it
 * skipped, so that the build can print it on the console: the tests' own output goes to files under
 * {@code target/surefire-reports}, where a skip's reason is easily missed. The build prints the
 * file right after the tests ({@code maven-antrun-plugin}, execution {@code skipped-tests} in
 * {@code veil-server/pom.xml} and {@code veil-cli/pom.xml}); no file means nothing was skipped.
 *
 * <p>A test is skipped when a tool it needs is missing (Chromium, {@code buf}, PostgreSQL): it
 * aborts with a message that names the group and the reason, e.g. {@code browser SDK tests skipped:
 * no Chromium at /usr/bin/chromium}. Registered through {@code META-INF/services}.
 */
public final class SkipReport implements TestExecutionListener {
  static final String FILE = "target/skipped-tests.txt";

  private final Map<String, List<String>> testsByReason = new TreeMap<>();
  private final Map<String, Integer> countByReason = new TreeMap<>();
  private volatile TestPlan plan;

  @Override
  public void testPlanExecutionStarted(TestPlan plan) {
    this.plan = plan;
    delete();
  }

  @Override
  public void executionSkipped(TestIdentifier test, String reason) {
    record(test, reason == null ? "disabled" : reason);
  }

  @Override
  public void executionFinished(TestIdentifier test, TestExecutionResult result) {
    if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
      record(
          test,
          result.getThrowable().map(Throwable::getMessage).orElse("aborted without a reason"));
    }
  }

  @Override
  public synchronized void testPlanExecutionFinished(TestPlan plan) {
    if (testsByReason.isEmpty()) {
      return;
    }
    StringBuilder text = new StringBuilder();
    testsByReason.forEach(
        (reason, tests) -> {
          int count = countByReason.get(reason);
          text.append(count)
              .append(count == 1 ? " test" : " tests")
              .append(" SKIPPED: ")
              .append(reason)
              .append('\n');
          tests.forEach(t -> text.append("    ").append(t).append('\n'));
        });
    try {
      Files.writeString(Path.of(FILE), text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the skipped tests' reasons to " + FILE, e);
    }
  }

  /** Records a skipped test, or a skipped class with the tests in it. */
  private synchronized void record(TestIdentifier test, String reason) {
    String name =
        test.getSource()
            .filter(MethodSource.class::isInstance)
            .map(
                s ->
                    ((MethodSource) s).getClassName().replaceFirst("^.*\\.", "")
                        + "."
                        + ((MethodSource) s).getMethodName())
            .orElse(test.getDisplayName());
    int count = 1;
    if (test.isContainer() && plan != null) {
      count = (int) plan.getDescendants(test).stream().filter(TestIdentifier::isTest).count();
      name += " (" + count + (count == 1 ? " test)" : " tests)");
    }
    String key = firstLine(reason);
    testsByReason.computeIfAbsent(key, r -> new ArrayList<>()).add(name);
    countByReason.merge(key, count, Integer::sum);
  }

  private static String firstLine(String text) {
    int end = text.indexOf('\n');
    return end < 0 ? text : text.substring(0, end);
  }

  private static void delete() {
    try {
      Files.deleteIfExists(Path.of(FILE));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + FILE, e);
    }
  }
}

package dev.veil.sdk;

import dev.veil.testing.Browser;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Wiring of the browser tests: without a browser each test is skipped (reported as skipped, with
 * the reason, after a notice on stderr) or, with {@value Browser#REQUIRE_ENV}=1, fails; otherwise
 * one {@link DemoServer} and one {@link Browser} serve the whole run (JUnit closes both at its
 * end), the browser is reset before each test (a fresh tab, no cookies, no storage), and both are
 * handed to test constructors.
 */
public final class BrowserExtension
    implements ExecutionCondition, BeforeAllCallback, BeforeEachCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(BrowserExtension.class);

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    String reason = Browser.unavailableReason();
    if (reason == null || Browser.required()) {
      return ConditionEvaluationResult.enabled("browser available, or required");
    }
    Browser.announceSkip(reason);
    return ConditionEvaluationResult.disabled("browser SDK test skipped: " + reason);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (Browser.unavailableReason() == null) {
      server(context);
      browser(context);
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    browser(context).reset(server(context).origins());
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == DemoServer.class || type == Browser.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Browser.assumeAvailable(); // fails here when the browser is required but missing
    return parameter.getParameter().getType() == DemoServer.class
        ? server(context)
        : browser(context);
  }

  private static DemoServer server(ExtensionContext context) {
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(DemoServer.class, k -> DemoServer.start(), DemoServer.class);
  }

  private static Browser browser(ExtensionContext context) {
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(Browser.class, k -> Browser.start(), Browser.class);
  }
}

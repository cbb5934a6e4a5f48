package dev.veil.sdk;

import dev.veil.testing.Browser;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Wiring of the browser tests: skips or fails them without a browser ({@link
 * Browser#assumeAvailable()}), starts one {@link DemoServer} and one {@link Browser} for the whole
 * run (JUnit closes both at its end), resets the browser before each test (a fresh tab, no cookies,
 * no storage), and hands both to test constructors.
 */
public final class BrowserExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(BrowserExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    Browser.assumeAvailable();
    server(context);
    browser(context);
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
    return parameter.getParameter().getType() == DemoServer.class ? server(context) : browser(context);
  }

  private static DemoServer server(ExtensionContext context) {
    return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(DemoServer.class, k -> DemoServer.start(),
        DemoServer.class);
  }

  private static Browser browser(ExtensionContext context) {
    return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Browser.class, k -> Browser.start(),
        Browser.class);
  }
}

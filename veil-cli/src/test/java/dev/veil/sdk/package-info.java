/**
 * The browser SDK ({@code sdk-js/veil-sdk.js}) in a real headless Chromium against a real {@code
 * veil serve --demo} ({@link dev.veil.sdk.BrowserExtension} shares one {@code DemoServer} and one
 * {@link dev.veil.testing.Browser} across the run; {@code DemoPage} reads the demo page). {@code
 * DemoFlowIT}: the publisher flow and CSP; {@code RefreshIT}: timing, outages, opt-out, expiry;
 * {@code TabsIT}; {@code CookieModeIT}: two subdomains; {@code AsyncLoadingIT}: the served file
 * loaded with {@code async}. The SDK's Node tests are in veil-server's {@code dev.veil.sdk} tests.
 */
package dev.veil.sdk;

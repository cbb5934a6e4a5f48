/**
 * The browser SDK ({@code sdk-js/veil-sdk.js}) without a server: {@code SdkUnitTestsTest} runs the
 * SDK's own fake-clock tests with Node; {@code SdkTypeScriptTest} compiles the README's TypeScript
 * against the SDK's types. Its tests in a real headless Chromium against a real {@code veil serve
 * --demo} are in veil-cli (the module of the {@code veil} command and the demo site).
 */
package dev.veil.sdk;

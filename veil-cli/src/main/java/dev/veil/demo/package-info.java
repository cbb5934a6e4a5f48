/**
 * The demo publisher site of {@code veil serve --demo} (README.md, "Try the demo"): {@link
 * dev.veil.demo.DemoSite} serves the page and plays the publisher's server side, {@code
 * TokenGenerator} calls the Veil API over HTTP with the demo's key ({@code DemoAccount}), and
 * {@code DemoPages} holds the files ({@code src/main/resources/demo/}) and the Content Security
 * Policy. Not part of the API: nothing else depends on this package.
 */
package dev.veil.demo;

/**
 * Test fixtures shared by every test package.
 *
 * <ul>
 *   <li>Fakes: {@link dev.veil.testing.MutableClock} (time moves only when told) and {@link
 *       dev.veil.testing.InMemoryStores} (every store in memory, with outages and narrower faults).
 *   <li>A node in-process: {@link dev.veil.testing.TestConfigs} (ephemeral ports, few buckets),
 *       {@link dev.veil.testing.InMemoryNode} (the production service graph over the fakes) and
 *       {@link dev.veil.testing.RunningAdminServer} (the admin gRPC server in front of it, in
 *       process or on a port); the HTTP listener in front of it is {@code
 *       dev.veil.http.testing.TestNode}.
 *   <li>Talking to a node: {@link dev.veil.testing.Http}, {@link
 *       dev.veil.testing.IdentityAdminClient} and {@link dev.veil.testing.Await}; {@link
 *       dev.veil.testing.Browser} (headless Chromium) for the browser SDK and {@link
 *       dev.veil.testing.PrebidBundle} (Prebid.js with its UID2 module) for a page in it.
 *   <li>The real process is veil-cli's (its tests add {@code ServerProcess}, a {@code veil serve}
 *       that can also be killed, paused and resumed, and {@code AdminCli} and {@code CliRun}, the
 *       {@code veil} commands in-process). This package reaches veil-cli's tests as veil-server's
 *       test-jar.
 *   <li>A database of the test's own: {@link dev.veil.testing.PrivatePostgres}, a throwaway
 *       PostgreSQL server that a test may stop, crash and restart.
 * </ul>
 */
package dev.veil.testing;

/**
 * {@code veil map}: bulk mapping of a file through a running server, on the client library's {@link
 * dev.veil.sdk.MappingCache}. {@link dev.veil.cli.map.MapRun} is the flow (checks, files, exit
 * codes); {@code CacheImport} reads the input into the cache while the cache maps it and the output
 * is written from it; {@code IdentifierFile}, {@code LineReader} and {@code Csv} read the input,
 * {@code MapFiles} names the files and replaces the output whole, {@code OutputLock} keeps a second
 * run off an output, {@code ProgressDisplay} shows progress on stderr.
 */
package dev.veil.cli.map;

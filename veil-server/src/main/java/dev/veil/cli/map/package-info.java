/**
 * {@code veil map}: bulk mapping of a file through a running server with the Java client's
 * {@link dev.veil.sdk.MappingCache}. {@link dev.veil.cli.map.MapRun} is the flow; {@code
 * ImportRun} reads the input, maps and writes the output at once on three threads; {@code
 * IdentifierFile}, {@code LineReader} and {@code Csv} read the input, {@code MappingFile} writes
 * the output atomically (with {@code CsvWriter} for the rejected identifiers), {@code
 * ProgressDisplay} shows progress on stderr.
 */
package dev.veil.cli.map;

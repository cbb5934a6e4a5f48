/**
 * {@code veil map}: bulk mapping of a file through a running server with the Java client's
 * {@link dev.veil.sdk.MappingCache}. {@link dev.veil.cli.map.MapRun} is the flow (read input →
 * map → write output); {@code IdentifierFile} and {@code Csv} read the input, {@code MappingFile}
 * writes the output atomically, {@code ProgressDisplay} shows progress on stderr.
 */
package dev.veil.cli.map;

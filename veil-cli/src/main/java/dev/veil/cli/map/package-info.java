/**
 * {@code veil map}: bulk mapping of a file through a running server, its output being its own
 * store. {@link dev.veil.cli.map.MapRun} is the flow; {@code OutputImport} reads the input, maps
 * and writes the rows in input order at once (checkpointed in {@code MapState}, so a stopped run
 * resumes), {@code OutputRefresh} re-maps the rows whose bucket rotated; {@code IdentifierFile},
 * {@code LineReader} and {@code Csv} read the input, {@code OutputFiles} and {@code CsvBuffer}
 * write the output, {@code ProgressDisplay} shows progress on stderr.
 */
package dev.veil.cli.map;

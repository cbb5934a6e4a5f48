package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.DocsCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SDK's published types, {@code sdk-js/veil-sdk.d.ts}, under {@code tsc --strict}: the README's
 * TypeScript snippets (its {@code ```ts} blocks) compile against them, so a publisher who pastes
 * one into a TypeScript page gets no error, and they say what {@code window.__veil} really is
 * before the script loads. The functions a snippet takes from the page itself are declared in
 * {@code tools/docs-check/readme-page.d.ts}. Each snippet is compiled on its own.
 */
class SdkTypeScriptTest {
  private static final Pattern TS_BLOCK = Pattern.compile("(?ms)^```ts[ \\t]*\\n(.*?)^```[ \\t]*$");
  private static final String SDK_SECTION = "## Browser SDK";

  @Test
  void readmeSnippets_compileUnderStrictAgainstTheSdkTypes(@TempDir Path dir) throws IOException {
    DocsCheck tools = DocsCheck.locate();
    String readme =
        Files.readString(DocsCheck.projectRoot().resolve("README.md"), StandardCharsets.UTF_8);
    assertThat(snippets(section(readme, SDK_SECTION)))
        .as("```ts blocks in the README's section %s", SDK_SECTION)
        .isNotEmpty();

    List<String> snippets = snippets(readme);
    for (int i = 0; i < snippets.size(); i++) {
      DocsCheck.Result tsc =
          compile(tools, dir, "readme-snippet-" + (i + 1) + ".ts", snippets.get(i));

      assertThat(tsc.exitCode())
          .as("tsc --strict of README snippet %d:\n%s\n%s", i + 1, snippets.get(i), tsc.output())
          .isZero();
    }
  }

  /**
   * Nothing defines it until the page's queue or the script does: an {@code async} script may come
   * late.
   */
  @Test
  void theGlobal_isPossiblyUndefinedBeforeThePageQueuesOnIt(@TempDir Path dir) throws IOException {
    DocsCheck tools = DocsCheck.locate();

    DocsCheck.Result tsc =
        compile(tools, dir, "no-queue.ts", "window.__veil.callbacks.push(() => {});\n");

    assertThat(tsc.exitCode()).as(tsc.output()).isNotZero();
    assertThat(tsc.output()).contains("'window.__veil' is possibly 'undefined'");
  }

  private static DocsCheck.Result compile(DocsCheck tools, Path dir, String name, String source)
      throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, source, StandardCharsets.UTF_8);
    return tools.tsc(
        dir,
        List.of(
            "--strict",
            "--noEmit",
            "--target",
            "es2022",
            "--lib",
            "es2022,dom",
            file.toString(),
            DocsCheck.projectRoot().resolve("sdk-js/veil-sdk.d.ts").toString(),
            tools.file("readme-page.d.ts").toString()));
  }

  private static List<String> snippets(String markdown) {
    List<String> found = new ArrayList<>();
    Matcher m = TS_BLOCK.matcher(markdown);
    while (m.find()) {
      found.add(m.group(1));
    }
    return found;
  }

  /** The text from {@code heading} to the next heading of the same level. */
  private static String section(String markdown, String heading) {
    int start = markdown.indexOf("\n" + heading);
    assertThat(start).as("README heading %s", heading).isNotNegative();
    int end = markdown.indexOf("\n## ", start + 1);
    return markdown.substring(start, end < 0 ? markdown.length() : end);
  }
}

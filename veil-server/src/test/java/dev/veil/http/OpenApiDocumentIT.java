package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.DocsCheck;
import dev.veil.testing.Http.Response;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OpenAPI document as a real node serves it at {@code /openapi.yaml}: it passes {@code redocly
 * lint} with the project's rules ({@code tools/docs-check/redocly.yaml}), it points at the node it
 * was fetched from (relative server URLs only), and its list of methods per path is the server's:
 * every other method answers the 405 the document describes.
 */
class OpenApiDocumentIT {
  /** Every method a client might try; CONNECT is left out (the JDK client refuses to send it). */
  private static final List<String> METHODS =
      List.of("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE");

  private static final Pattern PATH_PARAMETER = Pattern.compile("\\{([^}]+)}");

  private static TestNode node;
  private static String served;
  private static JsonNode doc;

  @BeforeAll
  static void fetchTheDocument() throws Exception {
    node = TestNode.start();
    Response r = node.get("/openapi.yaml", null);
    assertThat(r.code()).as(r.body()).isEqualTo(200);
    served = r.body();
    doc = new ObjectMapper(new YAMLFactory()).readTree(served);
  }

  @AfterAll
  static void stop() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void servedDocument_passesRedoclyLint(@TempDir Path dir) throws Exception {
    DocsCheck tools = DocsCheck.locate();
    Path file = dir.resolve("openapi.yaml");
    Files.writeString(file, served, StandardCharsets.UTF_8);

    DocsCheck.Result lint = tools.lintOpenApi(file);

    assertThat(lint.exitCode())
        .as("redocly lint of the served /openapi.yaml:\n%s", lint.output())
        .isZero();
  }

  @Test
  void servedDocument_namesTheServerOnlyByRelativeUrls() {
    List<String> urls = new ArrayList<>();
    collectServerUrls(doc, urls);

    assertThat(doc.path("servers").size()).as("servers at the top of the document").isPositive();
    assertThat(urls)
        .allSatisfy(
            url ->
                assertThat(isRelative(url))
                    .as(
                        "server URL %s must be relative, so that it resolves against the node the"
                            + " document came from",
                        url)
                    .isTrue());
  }

  @Test
  void everyPath_servesTheMethodsTheDocumentLists_andAnswersTheDocumented405ForOthers() {
    JsonNode notAllowed = doc.at("/components/responses/MethodNotAllowed");
    String documentedStatus =
        notAllowed.at("/content/application~1json/schema/properties/status/const").asText();
    assertThat(notAllowed.at("/headers/Allow").isObject())
        .as("MethodNotAllowed documents Allow")
        .isTrue();
    assertThat(documentedStatus).as("MethodNotAllowed's status word").isNotEmpty();

    doc.path("paths")
        .fields()
        .forEachRemaining(
            entry -> {
              String path = concrete(entry.getKey());
              Set<String> listed = listedMethods(entry.getValue());
              for (String method : METHODS) {
                Response r = send(method, path);
                if (listed.contains(method)) {
                  assertThat(r.code())
                      .as("%s %s, listed in the document", method, path)
                      .isNotIn(404, 405);
                } else {
                  assertThat(r.code())
                      .as("%s %s, not listed in the document", method, path)
                      .isEqualTo(405);
                  assertThat(new TreeSet<>(Arrays.asList(r.header("Allow").split(", *"))))
                      .as("Allow of %s %s", method, path)
                      .isEqualTo(listed);
                  assertThat(r.header("Content-Type"))
                      .as("%s %s", method, path)
                      .startsWith("application/json");
                  if (!method.equals("HEAD")) {
                    assertThat(r.status()).as("%s %s", method, path).isEqualTo(documentedStatus);
                  }
                }
              }
              entry
                  .getValue()
                  .fields()
                  .forEachRemaining(
                      operation -> {
                        if (METHODS.contains(operation.getKey().toUpperCase(Locale.ROOT))) {
                          assertThat(operation.getValue().at("/responses/405/$ref").asText())
                              .as(
                                  "%s %s documents the 405 of its path",
                                  operation.getKey(), entry.getKey())
                              .isEqualTo("#/components/responses/MethodNotAllowed");
                        }
                      });
            });
  }

  private static Response send(String method, String path) {
    HttpRequest.BodyPublisher body =
        method.equals("POST") || method.equals("PUT") || method.equals("PATCH")
            ? HttpRequest.BodyPublishers.ofString("{}")
            : HttpRequest.BodyPublishers.noBody();
    return node.send(HttpRequest.newBuilder(node.uri(path)).method(method, body).build());
  }

  /** The methods the document lists for a path, upper case. */
  private static Set<String> listedMethods(JsonNode pathItem) {
    Set<String> methods = new TreeSet<>();
    pathItem
        .fieldNames()
        .forEachRemaining(
            name -> {
              if (METHODS.contains(name.toUpperCase(Locale.ROOT))) {
                methods.add(name.toUpperCase(Locale.ROOT));
              }
            });
    return methods;
  }

  /**
   * The path with its parameters filled in; {@code version} is the SDK release the server ships.
   */
  private static String concrete(String template) {
    Matcher m = PATH_PARAMETER.matcher(template);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      assertThat(m.group(1))
          .as("a value for the path parameter of %s", template)
          .isEqualTo("version");
      m.appendReplacement(out, Matcher.quoteReplacement(SdkScript.load().version()));
    }
    return m.appendTail(out).toString();
  }

  /** Every {@code servers[].url}, at the top, on paths and on operations. */
  private static void collectServerUrls(JsonNode node, List<String> urls) {
    node.path("servers").forEach(server -> urls.add(server.path("url").asText()));
    node.path("paths")
        .forEach(
            pathItem -> {
              pathItem.path("servers").forEach(server -> urls.add(server.path("url").asText()));
              pathItem.forEach(
                  operation ->
                      operation
                          .path("servers")
                          .forEach(server -> urls.add(server.path("url").asText())));
            });
  }

  private static boolean isRelative(String url) {
    return !url.isEmpty() && !url.startsWith("//") && !URI.create(url).isAbsolute();
  }
}

package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http.Response;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code /static/veil-sdk.js} and its versioned twin: the bytes of sdk-js, headers, caching. */
class SdkScriptIT {
  private static final Path SOURCE =
      Path.of(System.getProperty("basedir", "."), "..", "sdk-js", "veil-sdk.js");
  private static TestNode node;

  @BeforeAll
  static void start() {
    node = TestNode.start();
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static String version(String script) {
    return script.replaceAll("(?s).*const VERSION = '([^']+)';.*", "$1");
  }

  @Test
  void latest_servesTheSdkSourceAsJavaScript_cachedFiveMinutes() throws IOException {
    Response r = node.get("/static/veil-sdk.js", null);
    assertThat(r.code()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(Files.readString(SOURCE));
    assertThat(r.header("Content-Type")).isEqualTo("text/javascript; charset=utf-8");
    assertThat(r.header("X-Content-Type-Options")).isEqualTo("nosniff");
    assertThat(r.header("Cache-Control")).isEqualTo("public, max-age=300");
    assertThat(r.header("ETag")).matches("\"[A-Za-z0-9_-]{22}\"");
    assertThat(r.header("Access-Control-Allow-Origin")).isEqualTo("*");
  }

  @Test
  void versioned_servesTheSameBytes_cachedForAYearAsImmutable() {
    Response latest = node.get("/static/veil-sdk.js", null);
    String version = version(latest.body());
    assertThat(version).matches("\\d+\\.\\d+\\.\\d+.*");
    Response r = node.get("/static/veil-sdk-" + version + ".js", null);
    assertThat(r.code()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(latest.body());
    assertThat(r.header("Cache-Control")).isEqualTo("public, max-age=31536000, immutable");
    assertThat(r.header("Content-Type")).isEqualTo("text/javascript; charset=utf-8");
    assertThat(r.header("X-Content-Type-Options")).isEqualTo("nosniff");
    assertThat(r.header("ETag")).isEqualTo(latest.header("ETag"));
  }

  @Test
  void otherVersion_isUnknown() {
    assertThat(node.get("/static/veil-sdk-0.0.0-nope.js", null).code()).isEqualTo(404);
    assertThat(node.get("/static/", null).code()).isEqualTo(404);
  }

  @Test
  void revalidation_withTheEtag_answers304WithoutABody() {
    String etag = node.get("/static/veil-sdk.js", null).header("ETag");
    Response r =
        node.send(
            HttpRequest.newBuilder(node.uri("/static/veil-sdk.js"))
                .header("If-None-Match", "\"other\", " + etag)
                .GET()
                .build());
    assertThat(r.code()).isEqualTo(304);
    assertThat(r.body()).isEmpty();
    assertThat(r.header("ETag")).isEqualTo(etag);
    assertThat(r.header("Cache-Control")).isEqualTo("public, max-age=300");

    Response stale =
        node.send(
            HttpRequest.newBuilder(node.uri("/static/veil-sdk.js"))
                .header("If-None-Match", "\"other\"")
                .GET()
                .build());
    assertThat(stale.code()).isEqualTo(200);
  }

  @Test
  void otherMethods_areNotAllowed() {
    Response r = node.post("/static/veil-sdk.js", null, "{}");
    assertThat(r.code()).isEqualTo(405);
    assertThat(r.header("Allow")).isEqualTo("GET, HEAD");
  }
}

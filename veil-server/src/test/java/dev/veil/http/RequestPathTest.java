package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestPathTest {
  @ParameterizedTest
  @CsvSource({
    "/v1/token/refresh, /v1/token/refresh",
    "/v1/token/refresh/, /v1/token/refresh",
    "//v1/token/refresh, /v1/token/refresh",
    "/v1//token///refresh//, /v1/token/refresh",
    "/v1/./token/refresh, /v1/token/refresh",
    "/v1/x/../token/refresh, /v1/token/refresh",
    "/../v1/token/refresh, /v1/token/refresh",
    "/v1/token/%72efresh, /v1/token/refresh",
    "/v1/token/%2E%2E/generate, /v1/generate",
    "/v1/token%2Frefresh, /v1/token%2Frefresh",
    "/v1/%zz/%4, /v1/%zz/%4",
    "/v1/%D9%A3, /v1/%D9%A3",
    "'', /",
    "/, /",
    "*, /*",
  })
  void normalize_spellsThePathAsUid2sRouterMatchedIt(String raw, String normal) {
    assertThat(RequestPath.normalize(raw)).isEqualTo(normal);
  }
}

package dev.veil.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The base URL as every client and the CLI take it. */
class EndpointTest {
  @Test
  void aBaseUrl_isKeptWithItsSchemeInLowerCase_andWithoutTrailingSlashes() {
    assertThat(Endpoint.baseUrl("http://127.0.0.1:8080")).isEqualTo("http://127.0.0.1:8080");
    assertThat(Endpoint.baseUrl("HTTP://127.0.0.1:8080//")).isEqualTo("http://127.0.0.1:8080");
    assertThat(Endpoint.baseUrl("https://Veil.Example.com/api/"))
        .isEqualTo("https://Veil.Example.com/api");
    assertThat(Endpoint.baseUrl("http://[::1]:8080/")).isEqualTo("http://[::1]:8080");
    assertThat(Endpoint.baseUrl("http://veil/a%20b")).isEqualTo("http://veil/a%20b");
  }

  @Test
  void whatIsWrongWithABaseUrl_isNamed() {
    assertThatThrownBy(() -> Endpoint.baseUrl("ftp://veil"))
        .hasMessage("baseUrl must start with http:// or https://");
    assertThatThrownBy(() -> Endpoint.baseUrl("127.0.0.1:8080"))
        .hasMessage("baseUrl must start with http:// or https://");
    assertThatThrownBy(() -> Endpoint.baseUrl("http:veil"))
        .hasMessage("baseUrl must start with http:// or https://");
    assertThatThrownBy(() -> Endpoint.baseUrl("http:///path"))
        .hasMessage("baseUrl must name a host");
    assertThatThrownBy(() -> Endpoint.baseUrl("http://my_host:8080"))
        .hasMessageStartingWith("baseUrl's host my_host:8080 is not a host name");
    assertThatThrownBy(() -> Endpoint.baseUrl("http://127.0.0.1:99999"))
        .hasMessage("baseUrl's port must be 1 to 65535, not 99999");
    assertThatThrownBy(() -> Endpoint.baseUrl("http://127.0.0.1:0"))
        .hasMessageContaining("port must be 1 to 65535");
    assertThatThrownBy(() -> Endpoint.baseUrl("http://veil/?a=1"))
        .hasMessageContaining("must not have a query");
    assertThatThrownBy(() -> Endpoint.baseUrl("http://veil/#top"))
        .hasMessageContaining("or fragment");
    assertThatThrownBy(() -> Endpoint.baseUrl("http://veil host"))
        .hasMessageStartingWith("baseUrl is not a URL: ");
    assertThatThrownBy(() -> Endpoint.baseUrl(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("baseUrl");
  }

  @Test
  void aUserAndPassword_areRefused_withoutBeingRepeated() {
    assertThatThrownBy(() -> Endpoint.baseUrl("https://user:s3cret@veil.example.com"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not hold a user or password")
        .message()
        .doesNotContain("s3cret");
  }
}

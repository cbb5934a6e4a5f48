package dev.veil.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WebhookUrlTest {
  private static final String ID = "+/8AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

  @Test
  void render_withoutPlaceholders_appendsIdentityAndTimestamp_percentEncoded() {
    URI plain = WebhookUrl.parse("https://dsp.example/optout").render(ID, 1_764_331_200L);
    URI withQuery = WebhookUrl.parse("https://dsp.example/o?k=v").render(ID, 5);

    assertThat(plain.toString())
        .isEqualTo(
            "https://dsp.example/optout?identity=%2B%2F8AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%3D"
                + "&timestamp=1764331200");
    assertThat(withQuery.getRawQuery()).startsWith("k=v&identity=%2B%2F8").endsWith("&timestamp=5");
  }

  @Test
  void render_withPlaceholders_putsTheValuesThereAndAppendsNothing() {
    URI uri =
        WebhookUrl.parse("http://127.0.0.1:8/h?user=%%identity%%&optouttime=%%timestamp%%&x=1")
            .render(ID, 42);

    assertThat(uri.getRawQuery())
        .isEqualTo("user=%2B%2F8AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%3D&optouttime=42&x=1");
  }

  @Test
  void requestTarget_isThePathAndTheRawQuery_orASlash() {
    assertThat(WebhookUrl.requestTarget(URI.create("https://h/a%20b?x=%2B")))
        .isEqualTo("/a%20b?x=%2B");
    assertThat(WebhookUrl.requestTarget(URI.create("https://h?x=1"))).isEqualTo("/?x=1");
  }

  @Test
  void toString_showsSchemeAndHostOnly() {
    assertThat(WebhookUrl.parse("https://dsp.example/secret-path?token=abc").toString())
        .isEqualTo("WebhookUrl[https://dsp.example]");
  }

  @Test
  void backoff_startsAtHalfASecond_doubles_andStopsAtTheMaximum() {
    DeliverySettings s =
        new DeliverySettings(
            Duration.ofMillis(500), Duration.ofSeconds(10), Duration.ofSeconds(5), 16, 1000);

    assertThat(s.backoff(1)).isEqualTo(Duration.ofMillis(500));
    assertThat(s.backoff(2)).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.backoff(4)).isEqualTo(Duration.ofSeconds(4));
    assertThat(s.backoff(5)).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.backoff(1_000)).isEqualTo(Duration.ofSeconds(5));
  }
}

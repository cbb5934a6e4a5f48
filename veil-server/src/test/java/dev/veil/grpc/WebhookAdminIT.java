package dev.veil.grpc;

import static dev.veil.grpc.testing.Statuses.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.Role;
import dev.veil.grpc.identity.admin.v1.DeleteWebhookRequest;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import dev.veil.grpc.identity.admin.v1.ListWebhooksRequest;
import dev.veil.grpc.identity.admin.v1.RegisterWebhookRequest;
import dev.veil.grpc.identity.admin.v1.RegisterWebhookResponse;
import dev.veil.testing.InMemoryNode;
import dev.veil.testing.RunningAdminServer;
import io.grpc.Status;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The webhook RPCs of {@code IdentityAdminApi} (docs/spec.md 4.1), in process. */
class WebhookAdminIT {
  private final RunningAdminServer server = RunningAdminServer.inProcess();
  private final InMemoryNode node = server.node();
  private final IdentityAdminApiBlockingStub admin = server.admin();

  @AfterEach
  void stop() throws InterruptedException {
    server.close();
  }

  private long bidder() {
    return node.newClient("bidder", Role.ID_READER).client().id();
  }

  private static RegisterWebhookRequest register(long clientId, String url) {
    return RegisterWebhookRequest.newBuilder().setClientId(clientId).setUrl(url).build();
  }

  @Test
  void register_returnsTheWebhookAndA32ByteSecretOnce_andListShowsItWithoutTheSecret() {
    long bidder = bidder();
    String url = "https://dsp.example/optout?user=%%identity%%&t=%%timestamp%%";

    RegisterWebhookResponse created = admin.registerWebhook(register(bidder, url));
    var listed = admin.listWebhooks(ListWebhooksRequest.getDefaultInstance());

    assertThat(Base64.getDecoder().decode(created.getSecret())).hasSize(32);
    assertThat(created.getWebhook().getId()).isPositive();
    assertThat(created.getWebhook().getClientId()).isEqualTo(bidder);
    assertThat(created.getWebhook().getUrl()).isEqualTo(url);
    assertThat(created.getWebhook().getCreatedMs())
        .isEqualTo(RunningAdminServer.START.toEpochMilli());
    assertThat(listed.getWebhooksList()).containsExactly(created.getWebhook());
    assertThat(listed.toString()).doesNotContain(created.getSecret());
  }

  @Test
  void badUrls_areInvalidArgument_namingTheRule_andNothingIsRegistered() {
    long bidder = bidder();
    List<List<String>> cases =
        List.of(
            List.of("", "url is required"),
            List.of("ftp://dsp.example/optout", "url must be an absolute http or https URL"),
            List.of("/optout", "url must be an absolute http or https URL"),
            List.of("javascript:alert(1)", "url must be an absolute http or https URL"),
            List.of("https:///optout", "url must name a host"),
            List.of("https://user:pw@dsp.example/", "url must not contain user info"),
            List.of("https://dsp.example/#frag", "url must not contain a fragment"),
            List.of(
                "https://dsp.example/a b",
                "url must not contain white space or control" + " characters"),
            List.of(
                "https://dsp.example/%%identity%%",
                "url placeholders may only appear in the" + " query"),
            List.of(
                "https://dsp.example/" + "a".repeat(2100),
                "url must have at most 2048" + " characters"),
            List.of("http://[::1", "url is not a valid URL"));
    for (List<String> c : cases) {
      Status status = statusOf(() -> admin.registerWebhook(register(bidder, c.get(0))));

      assertThat(status.getCode()).as(c.get(0)).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(status.getDescription()).as(c.get(0)).isEqualTo(c.get(1));
    }
    assertThat(admin.listWebhooks(ListWebhooksRequest.getDefaultInstance()).getWebhooksCount())
        .isZero();
  }

  @Test
  void register_forAnUnknownClient_isNotFound() {
    Status status = statusOf(() -> admin.registerWebhook(register(999, "https://dsp.example/")));

    assertThat(status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(status.getDescription()).isEqualTo("no client with id 999");
  }

  @Test
  void delete_removesItFromTheList_andASecondDeleteIsNotFound() {
    long id =
        admin.registerWebhook(register(bidder(), "http://127.0.0.1:9/x")).getWebhook().getId();

    admin.deleteWebhook(DeleteWebhookRequest.newBuilder().setWebhookId(id).build());
    Status again =
        statusOf(
            () -> admin.deleteWebhook(DeleteWebhookRequest.newBuilder().setWebhookId(id).build()));

    assertThat(admin.listWebhooks(ListWebhooksRequest.getDefaultInstance()).getWebhooksCount())
        .isZero();
    assertThat(again.getCode()).isEqualTo(Status.Code.NOT_FOUND);
  }

  @Test
  void webhookRpcs_needTheAdminRole() {
    long bidder = bidder();
    String key = node.newClientKey("not-admin", Role.ID_READER);

    Status status =
        statusOf(
            () ->
                server
                    .withAuthorization("Bearer " + key)
                    .registerWebhook(register(bidder, "https://dsp.example/")));
    Status anonymous =
        statusOf(() -> server.anonymous().listWebhooks(ListWebhooksRequest.getDefaultInstance()));

    assertThat(status.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(anonymous.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
  }
}

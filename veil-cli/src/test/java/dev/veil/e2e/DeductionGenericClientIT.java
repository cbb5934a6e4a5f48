package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.veil.testing.AdminCli;
import dev.veil.testing.BufCurl;
import dev.veil.testing.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code DeductionAdminApi} as a client written against the original interface definition sees it:
 * a real {@code veil serve} process called by {@code buf curl}, a generic gRPC client that knows
 * the API only from that definition ({@code request-definition/deduction_request.proto}, without
 * any of Veil's additions), from Veil's published {@code .proto}, or from server reflection.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeductionGenericClientIT {
  private static final String SERVICE = "protocol.payment.deduction.v1.DeductionAdminApi/";
  private static final List<String> METHODS =
      List.of(
          "GetDeductionList",
          "GetExpiredDeductionList",
          "OpenDeduction",
          "CloseDeduction",
          "CreateDeduction");
  private static final int UNAUTHENTICATED = 16;
  private static final int PERMISSION_DENIED = 7;

  private BufCurl buf;
  private ServerProcess server;
  private String admin;
  private String mapper;
  private Path requestSchema;
  private Path veilSchema;

  @BeforeAll
  void start(@TempDir Path dataDir) throws Exception {
    if (!BufCurl.isInstalled()) {
      return; // each test then skips (or fails, in CI) in requireTheTool, so the report counts them
    }
    Path root = BufCurl.projectRoot();
    requestSchema =
        root.resolve("veil-server/src/test/resources/request-definition/deduction_request.proto");
    veilSchema =
        root.resolve("veil-grpc/src/main/proto/protocol/payment/deduction/v1/deduction.proto");
    server = ServerProcess.start(dataDir, "--set", "salt.buckets=64");
    admin = "Bearer " + Files.readString(dataDir.resolve("admin.key")).strip();
    mapper =
        "Bearer "
            + AdminCli.createClient(
                server.grpcPort(), admin.substring(7), "mapper", "MAPPER,GENERATOR");
  }

  @BeforeEach
  void requireTheTool() {
    buf = BufCurl.locate();
  }

  @AfterAll
  void stop() throws InterruptedException {
    if (server != null) {
      server.close();
    }
  }

  private static String json(Map<String, Object> fields) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    fields.forEach((k, v) -> node.putPOJO(k, v));
    return node.toString();
  }

  /** A call through the original definition with the admin key; asserts gRPC status OK. */
  private JsonNode call(String method, Map<String, Object> request) {
    BufCurl.Result r =
        buf.call(server.grpcPort(), SERVICE + method, json(request), requestSchema, admin);
    assertThat(r.exitCode()).as("gRPC status of %s; stderr: %s", method, r.err()).isZero();
    return r.json();
  }

  private static void assertOutcome(JsonNode response, int code, String message) {
    assertThat(response.get("code").asInt()).as(response.toString()).isEqualTo(code);
    assertThat(response.get("success").asBoolean()).isEqualTo(code == 0);
    assertThat(response.get("message").asText()).isEqualTo(message);
  }

  private static List<Long> ids(JsonNode response) {
    List<Long> ids = new ArrayList<>();
    response.get("data").forEach(d -> ids.add(d.get("id").asLong()));
    return ids;
  }

  @Test
  void requestDefinition_createListCloseOpen_roundTrip() {
    JsonNode created =
        call(
            "CreateDeduction",
            Map.of("title", "Gym", "desc", "monthly", "pay_method_id", 4_294_967_295L));

    assertOutcome(created, 0, "success");
    JsonNode d = created.get("data").get(0);
    long id = d.get("id").asLong();
    assertThat(id).isPositive();
    assertThat(d.get("title").asText()).isEqualTo("Gym");
    assertThat(d.get("desc").asText()).isEqualTo("monthly");
    assertThat(d.get("payMethodId").asLong()).isEqualTo(4_294_967_295L);
    assertThat(d.get("status").asInt()).isZero();
    assertThat(ids(call("GetDeductionList", Map.of()))).contains(id);

    JsonNode closed = call("CloseDeduction", Map.of("id", id));
    assertOutcome(closed, 0, "success");
    assertThat(closed.get("data").get(0).get("status").asInt()).isEqualTo(1);
    assertThat(ids(call("GetExpiredDeductionList", Map.of()))).contains(id);
    assertThat(ids(call("GetDeductionList", Map.of()))).doesNotContain(id);
    assertOutcome(call("CloseDeduction", Map.of("id", id)), 0, "success");

    JsonNode opened = call("OpenDeduction", Map.of("id", id));
    assertOutcome(opened, 0, "success");
    assertThat(opened.get("data").get(0).get("status").asInt()).isZero();
    assertThat(ids(call("GetDeductionList", Map.of()))).contains(id);
    assertThat(ids(call("GetExpiredDeductionList", Map.of()))).doesNotContain(id);
  }

  @Test
  void requestDefinition_badInput_isAnsweredWithStatusOkAndACode() {
    assertOutcome(
        call("CreateDeduction", Map.of("title", "")),
        4,
        "invalid argument: title must not be blank");
    assertOutcome(
        call("CreateDeduction", Map.of()), 4, "invalid argument: title must not be blank");
    assertOutcome(
        call("CreateDeduction", Map.of("title", "t".repeat(10_000))),
        4,
        "invalid argument: title must be at most 128 characters");
    assertOutcome(
        call("CreateDeduction", Map.of("title", "t", "desc", "d".repeat(1025))),
        4,
        "invalid argument: desc must be at most 1024 characters");
    for (String method : List.of("OpenDeduction", "CloseDeduction")) {
      assertOutcome(call(method, Map.of("id", 0)), 2, "record not found");
      assertOutcome(call(method, Map.of()), 2, "record not found");
      assertOutcome(call(method, Map.of("id", 4_000_000_000L)), 2, "record not found");
    }
  }

  @Test
  void everyMethod_withoutKey_isUnauthenticated() {
    for (String method : METHODS) {
      BufCurl.Result r =
          buf.call(
              server.grpcPort(),
              SERVICE + method,
              json(Map.of("title", "sneaky", "id", 1)),
              requestSchema,
              null);

      assertThat(r.grpcCode()).as(method + ": " + r.err()).isEqualTo(UNAUTHENTICATED);
      assertThat(r.err()).contains("unauthenticated");
    }
    BufCurl.Result unknownKey =
        buf.call(
            server.grpcPort(),
            SERVICE + "GetDeductionList",
            "{}",
            requestSchema,
            "Bearer vk1.AAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    assertThat(unknownKey.grpcCode()).isEqualTo(UNAUTHENTICATED);
    assertThat(ids(call("GetDeductionList", Map.of())))
        .allSatisfy(id -> assertThat(id).isPositive());
  }

  @Test
  void everyMethod_withAKeyWithoutTheAdminRole_isPermissionDenied() {
    long before = call("GetDeductionList", Map.of()).get("data").size();
    for (String method : METHODS) {
      BufCurl.Result r =
          buf.call(
              server.grpcPort(),
              SERVICE + method,
              json(Map.of("title", "sneaky", "id", 1)),
              requestSchema,
              mapper);

      assertThat(r.grpcCode()).as(method + ": " + r.err()).isEqualTo(PERMISSION_DENIED);
      assertThat(r.err()).contains("permission_denied").contains("ADMIN");
    }
    assertThat(call("GetDeductionList", Map.of()).get("data").size()).isEqualTo(before);
  }

  @Test
  void reflection_listsTheFiveMethods_andServesCallsWithoutASchema() {
    BufCurl.Result methods = buf.listMethods(server.grpcPort(), admin);

    assertThat(methods.exitCode()).as(methods.err()).isZero();
    for (String method : METHODS) {
      assertThat(methods.out()).contains(SERVICE + method);
    }
    BufCurl.Result created =
        buf.call(
            server.grpcPort(),
            SERVICE + "CreateDeduction",
            json(Map.of("title", "via reflection", "request_id", "reflect-1")),
            null,
            admin);
    assertThat(created.exitCode()).as(created.err()).isZero();
    JsonNode record = created.json().get("data").get(0);
    assertThat(record.get("title").asText()).isEqualTo("via reflection");
    assertThat(record.get("createdMs").asLong()).isPositive(); // Veil's additions are visible here
    BufCurl.Result retried =
        buf.call(
            server.grpcPort(),
            SERVICE + "CreateDeduction",
            json(Map.of("title", "via reflection", "request_id", "reflect-1")),
            null,
            admin);
    assertThat(retried.json().get("data").get(0).get("id")).isEqualTo(record.get("id"));

    // Without a key, reflection answers UNAUTHENTICATED, which buf reports as a service it cannot
    // find (exit 1): the caller learns nothing of the admin API.
    BufCurl.Result anonymous =
        buf.call(server.grpcPort(), SERVICE + "GetDeductionList", "{}", null, null);
    assertThat(anonymous.exitCode()).as(anonymous.err()).isEqualTo(1);
    assertThat(anonymous.out()).doesNotContain("data");
    BufCurl.Result anonymousList = buf.listMethods(server.grpcPort(), null);
    assertThat(anonymousList.exitCode()).as(anonymousList.err()).isEqualTo(1);
    assertThat(anonymousList.out()).doesNotContain(SERVICE);
  }

  @Test
  void veilDefinition_pagesThroughTheList() {
    for (int i = 0; i < 5; i++) {
      call("CreateDeduction", Map.of("title", "page " + i));
    }
    List<Long> all = ids(call("GetDeductionList", Map.of()));
    List<Long> paged = new ArrayList<>();
    String token = "";
    do {
      BufCurl.Result r =
          buf.call(
              server.grpcPort(),
              SERVICE + "GetDeductionList",
              json(Map.of("page_size", 2, "page_token", token)),
              veilSchema,
              admin);
      assertThat(r.exitCode()).as(r.err()).isZero();
      assertOutcome(r.json(), 0, "success");
      assertThat(r.json().get("data").size()).isLessThanOrEqualTo(2);
      paged.addAll(ids(r.json()));
      token = r.json().get("nextPageToken").asText();
    } while (!token.isEmpty());

    assertThat(paged).isEqualTo(all).hasSizeGreaterThanOrEqualTo(5);
    BufCurl.Result bad =
        buf.call(
            server.grpcPort(),
            SERVICE + "GetDeductionList",
            json(Map.of("page_size", 2, "page_token", "forged")),
            veilSchema,
            admin);
    assertOutcome(
        bad.json(), 4, "invalid argument: page_token is not a token from a previous page");
  }
}

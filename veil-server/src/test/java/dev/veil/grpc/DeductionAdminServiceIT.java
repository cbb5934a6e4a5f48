package dev.veil.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.veil.client.Role;
import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc;
import dev.veil.grpc.deduction.v1.DeductionReq;
import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.grpc.deduction.v1.DeductionStruct;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc;
import dev.veil.grpc.identity.admin.v1.ListClientsRequest;
import dev.veil.grpc.testing.Reflection;
import dev.veil.testing.DeductionClient;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import dev.veil.testing.RunningAdminServer;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.MetadataUtils;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code DeductionAdminApi} served as a node serves it (the admin server's interceptors, health and
 * reflection, over the node's in-memory stores and clock), through gRPC's in-process transport:
 * outcomes in code/message with status OK, authentication, reflection and health, a store outage,
 * paging and call-level limits. The message size limit belongs to the admin port's listener and is
 * checked over a real port.
 */
class DeductionAdminServiceIT {
  private static final String UNKNOWN_KEY =
      "vk1.AAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

  private final RunningAdminServer server =
      RunningAdminServer.inProcessWith(RunningAdminServer::deductionAdmin);
  private final MutableClock clock = server.node().clock();
  private final InMemoryStores stores = server.node().store();
  private final String adminKey = server.adminKey();
  private final DeductionClient admin = new DeductionClient(server.newChannel(), adminKey);

  @AfterEach
  void stop() throws InterruptedException {
    admin.close();
    server.close();
  }

  private static Status statusOf(ThrowingCallable call) {
    StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, call);
    assertThat(e).as("the call should fail with a gRPC status").isNotNull();
    return e.getStatus();
  }

  private static void assertOutcome(DeductionResp r, int code, String message) {
    assertThat(r.getCode()).as(r.toString()).isEqualTo(code);
    assertThat(r.getSuccess()).isEqualTo(code == 0);
    assertThat(r.getMessage()).isEqualTo(message);
  }

  /** The five methods, each called with {@code request} through {@code stub}. */
  private static List<ThrowingCallable> everyMethod(
      DeductionAdminApiGrpc.DeductionAdminApiBlockingStub stub, DeductionReq request) {
    return List.of(
        () -> stub.getDeductionList(request),
        () -> stub.getExpiredDeductionList(request),
        () -> stub.openDeduction(request),
        () -> stub.closeDeduction(request),
        () -> stub.createDeduction(request),
        () -> stub.getDeduction(request));
  }

  // --- outcomes ---

  @Test
  void create_returnsTheRecordInData0_withStatusNormalAndTimes() {
    DeductionResp r = admin.create("Gym", "monthly", 7, "");

    assertOutcome(r, 0, "success");
    assertThat(r.getDataList())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.getId()).isEqualTo(1);
              assertThat(d.getTitle()).isEqualTo("Gym");
              assertThat(d.getDesc()).isEqualTo("monthly");
              assertThat(d.getPayMethodId()).isEqualTo(7);
              assertThat(d.getStatus()).isZero();
              assertThat(d.getCreatedMs()).isEqualTo(clock.millis());
              assertThat(d.getUpdatedMs()).isEqualTo(clock.millis());
            });
    assertThat(admin.listNormal().getDataList()).isEqualTo(r.getDataList());
  }

  @Test
  void payMethodId_aboveTheSignedRange_roundTripsUnsigned() {
    int max = (int) 4_294_967_295L;

    DeductionStruct d = admin.create("Gym", "", max, "").getData(0);

    assertThat(Integer.toUnsignedLong(d.getPayMethodId())).isEqualTo(4_294_967_295L);
    assertThat(
            stores
                .deductions()
                .list(
                    dev.veil.deduction.DeductionFilter.status(
                        dev.veil.deduction.DeductionStatus.NORMAL),
                    0,
                    0)
                .get(0)
                .payMethodId())
        .isEqualTo(4_294_967_295L);
  }

  @Test
  void get_returnsOneRecordWhateverItsStatus_andCode2ForAnUnknownId() {
    int id = admin.create("Gym", "monthly", 7, "").getData(0).getId();
    admin.close(id);

    DeductionResp got = admin.get(id);
    assertOutcome(got, 0, "success");
    assertThat(got.getDataList())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.getId()).isEqualTo(id);
              assertThat(d.getTitle()).isEqualTo("Gym");
              assertThat(d.getStatus()).isEqualTo(1);
            });
    assertOutcome(admin.get(id + 1), 2, "record not found");
    assertOutcome(admin.get(0), 2, "record not found");
  }

  @Test
  void closeAndOpen_moveTheRecordBetweenTheLists_idempotently() {
    int id = admin.create("Gym", "", 0, "").getData(0).getId();
    clock.advance(Duration.ofSeconds(3));

    DeductionResp closed = admin.close(id);
    DeductionResp closedAgain = admin.close(id);

    assertOutcome(closed, 0, "success");
    assertThat(closed.getData(0).getStatus()).isEqualTo(1);
    assertThat(closed.getData(0).getUpdatedMs()).isEqualTo(clock.millis());
    assertThat(closedAgain.getDataList()).isEqualTo(closed.getDataList());
    assertThat(admin.listNormal().getDataCount()).isZero();
    assertThat(admin.listExpired().getDataList()).isEqualTo(closed.getDataList());

    DeductionResp opened = admin.open(id);

    assertOutcome(opened, 0, "success");
    assertThat(opened.getData(0).getStatus()).isZero();
    assertThat(admin.listExpired().getDataCount()).isZero();
  }

  @Test
  void badInput_isAnsweredWithStatusOk_andACode() {
    admin.create("exists", "", 0, "");

    assertOutcome(admin.create("", "", 0, ""), 4, "invalid argument: title must not be blank");
    assertOutcome(
        admin.create("x".repeat(10_000), "", 0, ""),
        4,
        "invalid argument: title must be at most 128 characters");
    assertOutcome(
        admin.create("t", "d".repeat(1025), 0, ""),
        4,
        "invalid argument: desc must be at most 1024 characters");
    assertOutcome(admin.open(0), 2, "record not found");
    assertOutcome(admin.close(0), 2, "record not found");
    assertOutcome(admin.open(999), 2, "record not found");
    assertOutcome(admin.close(-1), 2, "record not found"); // id 4294967295 on the wire
    assertOutcome(
        admin
            .api()
            .getDeductionList(
                DeductionReq.newBuilder().setPageSize(1).setPageToken("nope").build()),
        4,
        "invalid argument: page_token is not a token from a previous page");
    assertThat(admin.listNormal().getDataCount()).isEqualTo(1);
  }

  @Test
  void create_withARequestId_isIdempotent_andRefusesOtherFieldsUnderTheSameId() {
    DeductionResp first = admin.create("Gym", "monthly", 7, "order-42");
    DeductionResp retry = admin.create("Gym", "monthly", 7, "order-42");
    DeductionResp other = admin.create("Pool", "monthly", 7, "order-42");

    assertThat(retry.getDataList()).isEqualTo(first.getDataList());
    assertOutcome(
        other, 4, "invalid argument: request_id was already used for a different deduction");
    assertThat(admin.listNormal().getDataCount()).isEqualTo(1);
  }

  @Test
  void lists_withPageSize_walkEveryRecordOnce() {
    for (int i = 0; i < 25; i++) {
      admin.create("d" + i, "", 0, "");
    }
    List<Integer> ids = new ArrayList<>();
    String token = "";
    int pages = 0;
    do {
      DeductionResp page =
          admin
              .api()
              .getDeductionList(
                  DeductionReq.newBuilder().setPageSize(10).setPageToken(token).build());
      assertOutcome(page, 0, "success");
      page.getDataList().forEach(d -> ids.add(d.getId()));
      token = page.getNextPageToken();
      pages++;
    } while (!token.isEmpty());

    assertThat(pages).isEqualTo(3);
    assertThat(ids).hasSize(25).isSorted().doesNotHaveDuplicates();
    assertThat(admin.listNormal().getDataCount()).isEqualTo(25);
    assertThat(admin.listNormal().getNextPageToken()).isEmpty();
  }

  // --- store outage ---

  @Test
  void storeOutage_answersCode1OnEveryMethod_theServerKeepsServing_andRecovers() {
    int id = admin.create("Gym", "", 0, "").getData(0).getId();
    stores.setDown(true);

    List<DeductionResp> during =
        List.of(
            admin.create("Pool", "", 0, ""),
            admin.open(id),
            admin.close(id),
            admin.listNormal(),
            admin.listExpired());

    during.forEach(r -> assertOutcome(r, 1, "storage unavailable"));
    HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(admin.channel());
    assertThat(health.check(HealthCheckRequest.getDefaultInstance()).getStatus())
        .isEqualTo(ServingStatus.SERVING);
    stores.setDown(false);
    assertThat(admin.listNormal().getDataList())
        .extracting(DeductionStruct::getId)
        .containsExactly(id);
    assertOutcome(admin.create("Pool", "", 0, ""), 0, "success");
  }

  // --- authentication ---

  @Test
  void everyMethod_withoutKey_isUnauthenticated_andChangesNothing() {
    DeductionClient anonymous = new DeductionClient(server.newChannel(), null);
    DeductionClient unknown = new DeductionClient(server.newChannel(), UNKNOWN_KEY);
    try {
      DeductionReq create = DeductionReq.newBuilder().setTitle("sneaky").setId(1).build();
      for (DeductionClient client : List.of(anonymous, unknown)) {
        for (ThrowingCallable call : everyMethod(client.api(), create)) {
          Status status = statusOf(call);
          assertThat(status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
          assertThat(status.getDescription()).contains("authorization: Bearer");
        }
      }
    } finally {
      close(anonymous, unknown);
    }
    assertThat(admin.listNormal().getDataCount()).isZero();
  }

  @Test
  void everyMethod_withAKeyWithoutAdmin_isPermissionDenied_andChangesNothing() {
    String mapperKey =
        server
            .node()
            .services()
            .clients()
            .create("mapper", 0, Set.of(Role.MAPPER, Role.GENERATOR, Role.OPTOUT, Role.ID_READER))
            .key()
            .reveal();
    DeductionClient mapper = new DeductionClient(server.newChannel(), mapperKey);
    try {
      for (ThrowingCallable call :
          everyMethod(mapper.api(), DeductionReq.newBuilder().setTitle("sneaky").build())) {
        Status status = statusOf(call);
        assertThat(status.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(status.getDescription()).contains("ADMIN");
      }
    } finally {
      close(mapper);
    }
    assertThat(admin.listNormal().getDataCount()).isZero();
  }

  @Test
  void malformedAuthorization_isUnauthenticated() {
    for (String value :
        List.of("Basic dXNlcjpwYXNz", "Bearer", adminKey, "Bearer " + adminKey + "x")) {
      Metadata headers = new Metadata();
      headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), value);
      var stub =
          DeductionAdminApiGrpc.newBlockingStub(admin.channel())
              .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
              .withDeadlineAfter(30, TimeUnit.SECONDS);

      assertThat(statusOf(() -> stub.getDeductionList(DeductionReq.getDefaultInstance())).getCode())
          .as(value)
          .isEqualTo(Status.Code.UNAUTHENTICATED);
    }
  }

  // --- call-level limits ---

  @Test
  void messageOverTheLimit_onTheAdminPort_isResourceExhausted_andTheServerKeepsServing()
      throws Exception {
    try (RunningAdminServer onPort =
            RunningAdminServer.startWith(RunningAdminServer::deductionAdmin);
        DeductionClient client = new DeductionClient(onPort.port(), onPort.adminKey())) {
      Status status = statusOf(() -> client.create("x".repeat(5 * 1024 * 1024), "", 0, ""));

      assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertOutcome(client.create("after", "", 0, ""), 0, "success");
    }
  }

  @Test
  void expiredDeadline_isDeadlineExceeded() {
    Status status =
        statusOf(
            () ->
                admin
                    .api()
                    .withDeadlineAfter(1, TimeUnit.NANOSECONDS)
                    .createDeduction(DeductionReq.newBuilder().setTitle("late").build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
  }

  // --- health and reflection ---

  @Test
  void health_reportsTheServiceServing_andTheIdentityApiStillWorks() {
    HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(admin.channel());

    assertThat(
            health
                .check(
                    HealthCheckRequest.newBuilder()
                        .setService(DeductionAdminApiGrpc.SERVICE_NAME)
                        .build())
                .getStatus())
        .isEqualTo(ServingStatus.SERVING);
    Metadata headers = new Metadata();
    headers.put(
        Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + adminKey);
    assertThat(
            IdentityAdminApiGrpc.newBlockingStub(admin.channel())
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
                .listClients(ListClientsRequest.getDefaultInstance())
                .getClientsCount())
        .isEqualTo(1);
  }

  @Test
  void reflection_withAdminKey_listsTheService_withTheRequestsMethodsAndFieldNumbers()
      throws Exception {
    List<String> services =
        reflect(ServerReflectionRequest.newBuilder().setListServices("").build())
            .getListServicesResponse()
            .getServiceList()
            .stream()
            .map(ServiceResponse::getName)
            .toList();
    assertThat(services)
        .contains(
            "protocol.payment.deduction.v1.DeductionAdminApi",
            "protocol.identity.admin.v1.IdentityAdminApi");

    FileDescriptorProto file = deductionFile();
    assertThat(file.getPackage()).isEqualTo("protocol.payment.deduction.v1");
    ServiceDescriptorProto service = file.getService(0);
    assertThat(service.getName()).isEqualTo("DeductionAdminApi");
    assertThat(service.getMethodList())
        .extracting(MethodDescriptorProto::getName)
        .containsExactlyInAnyOrder(
            "GetDeductionList",
            "GetExpiredDeductionList",
            "OpenDeduction",
            "CloseDeduction",
            "CreateDeduction",
            // Veil's additions:
            "GetDeduction",
            "ListDeductions",
            "GetDeductionHistory",
            "WatchDeductions");
    Set<String> requests =
        Set.of(
            "GetDeductionList",
            "GetExpiredDeductionList",
            "OpenDeduction",
            "CloseDeduction",
            "CreateDeduction",
            "GetDeduction");
    assertThat(service.getMethodList())
        .filteredOn(m -> requests.contains(m.getName()))
        .hasSize(6)
        .allSatisfy(
            m -> {
              assertThat(m.getInputType()).isEqualTo(".protocol.payment.deduction.v1.DeductionReq");
              assertThat(m.getOutputType())
                  .isEqualTo(".protocol.payment.deduction.v1.DeductionResp");
            });
    Map<String, DescriptorProto> messages =
        file.getMessageTypeList().stream()
            .collect(Collectors.toMap(DescriptorProto::getName, Function.identity()));
    assertFields(
        messages.get("DeductionStruct"),
        7,
        Map.of(
            "title",
            field(1, FieldDescriptorProto.Type.TYPE_STRING),
            "desc",
            field(2, FieldDescriptorProto.Type.TYPE_STRING),
            "status",
            field(3, FieldDescriptorProto.Type.TYPE_UINT32),
            "id",
            field(4, FieldDescriptorProto.Type.TYPE_UINT32),
            "pay_method_id",
            field(5, FieldDescriptorProto.Type.TYPE_UINT32)));
    assertThat(messages.get("DeductionStruct").getReservedRangeList())
        .anySatisfy(r -> assertThat(r.getStart()).isEqualTo(6));
    assertThat(messages.get("DeductionStruct").getFieldList()).noneMatch(f -> f.getNumber() == 6);
    assertFields(
        messages.get("DeductionReq"),
        5,
        Map.of(
            "title",
            field(1, FieldDescriptorProto.Type.TYPE_STRING),
            "desc",
            field(2, FieldDescriptorProto.Type.TYPE_STRING),
            "pay_method_id",
            field(3, FieldDescriptorProto.Type.TYPE_UINT32),
            "id",
            field(4, FieldDescriptorProto.Type.TYPE_UINT32)));
    assertFields(
        messages.get("DeductionResp"),
        5,
        Map.of(
            "success",
            field(1, FieldDescriptorProto.Type.TYPE_BOOL),
            "data",
            field(2, FieldDescriptorProto.Type.TYPE_MESSAGE),
            "message",
            field(3, FieldDescriptorProto.Type.TYPE_STRING),
            "code",
            field(4, FieldDescriptorProto.Type.TYPE_UINT32)));
    FieldDescriptorProto data =
        messages.get("DeductionResp").getFieldList().stream()
            .filter(f -> f.getName().equals("data"))
            .findFirst()
            .orElseThrow();
    assertThat(data.getLabel()).isEqualTo(FieldDescriptorProto.Label.LABEL_REPEATED);
    assertThat(data.getTypeName()).isEqualTo(".protocol.payment.deduction.v1.DeductionStruct");
  }

  private record Field(int number, FieldDescriptorProto.Type type) {}

  private static Field field(int number, FieldDescriptorProto.Type type) {
    return new Field(number, type);
  }

  /**
   * The request's fields are present with their numbers and types; Veil's additions take numbers
   * from {@code firstNewNumber} on.
   */
  private static void assertFields(
      DescriptorProto message, int firstNewNumber, Map<String, Field> requestFields) {
    for (FieldDescriptorProto f : message.getFieldList()) {
      Field expected = requestFields.get(f.getName());
      if (expected == null) {
        assertThat(f.getNumber())
            .as(message.getName() + "." + f.getName() + " is an addition")
            .isGreaterThanOrEqualTo(firstNewNumber);
      } else {
        assertThat(new Field(f.getNumber(), f.getType()))
            .as(message.getName() + "." + f.getName())
            .isEqualTo(expected);
      }
    }
    assertThat(message.getFieldList())
        .extracting(FieldDescriptorProto::getName)
        .containsAll(requestFields.keySet());
  }

  private FileDescriptorProto deductionFile() throws Exception {
    ServerReflectionResponse answer =
        reflect(
            ServerReflectionRequest.newBuilder()
                .setFileContainingSymbol("protocol.payment.deduction.v1.DeductionAdminApi")
                .build());
    return answer.getFileDescriptorResponse().getFileDescriptorProtoList().stream()
        .map(
            bytes -> {
              try {
                return FileDescriptorProto.parseFrom(bytes);
              } catch (InvalidProtocolBufferException e) {
                throw new AssertionError(e);
              }
            })
        .filter(f -> f.getPackage().equals("protocol.payment.deduction.v1"))
        .findFirst()
        .orElseThrow();
  }

  private ServerReflectionResponse reflect(ServerReflectionRequest request) throws Exception {
    Metadata headers = new Metadata();
    headers.put(
        Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + adminKey);
    return Reflection.ask(
        ClientInterceptors.intercept(
            admin.channel(), MetadataUtils.newAttachHeadersInterceptor(headers)),
        request);
  }

  private static void close(DeductionClient... clients) {
    for (DeductionClient c : clients) {
      try {
        c.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}

package dev.veil.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Message;
import dev.veil.client.AdminAction;
import dev.veil.client.Role;
import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc;
import dev.veil.grpc.identity.admin.v1.CreateClientRequest;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import dev.veil.grpc.identity.admin.v1.RotateClientKeyRequest;
import dev.veil.grpc.identity.admin.v1.RotateClientSecretRequest;
import dev.veil.grpc.identity.admin.v1.SetClientEnabledRequest;
import dev.veil.testing.RunningAdminServer;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Operator roles through a real gRPC channel on a loopback port: every method of both admin
 * services called by a client of each operator role (and of a public API role), allowed exactly
 * when {@link AdminAction} gives the method that role or the caller holds {@code ADMIN}; and the
 * rules for granting roles and changing clients that hold them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminRolesIT {
  private RunningAdminServer server;
  private final Map<Role, String> keys = new EnumMap<>(Role.class);

  @BeforeAll
  void start() {
    server = RunningAdminServer.startWith(RunningAdminServer::deductionAdmin);
    for (Role role : Role.values()) {
      keys.put(role, server.node().newClientKey("holder of " + role, role));
    }
    // One change in the deduction log, so that an allowed WatchDeductions answers at once.
    server.insertDeductionInStore("watched");
  }

  @AfterAll
  void stop() throws InterruptedException {
    server.close();
  }

  private Channel as(String key) {
    Metadata headers = new Metadata();
    headers.put(RunningAdminServer.AUTHORIZATION, "Bearer " + key);
    return ClientInterceptors.intercept(
        server.channel(), MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  private IdentityAdminApiBlockingStub identityAdmin(String key) {
    return IdentityAdminApiGrpc.newBlockingStub(as(key)).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private static List<MethodDescriptor<?, ?>> adminMethods() {
    List<MethodDescriptor<?, ?>> methods = new ArrayList<>();
    for (ServiceDescriptor service :
        List.of(
            IdentityAdminApiGrpc.getServiceDescriptor(),
            DeductionAdminApiGrpc.getServiceDescriptor())) {
      methods.addAll(service.getMethods());
    }
    return methods;
  }

  /** Calls {@code method} with an empty request; the status it ended with. */
  @SuppressWarnings("unchecked")
  private Status.Code callEmpty(String key, MethodDescriptor<?, ?> method) {
    MethodDescriptor<Message, Message> m = (MethodDescriptor<Message, Message>) method;
    Message empty =
        (Message)
            ((MethodDescriptor.PrototypeMarshaller<?>) m.getRequestMarshaller())
                .getMessagePrototype();
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS);
    try {
      if (m.getType() == MethodDescriptor.MethodType.SERVER_STREAMING) {
        // A stream that is allowed stays open: its first message tells, then it is cancelled.
        Context.CancellableContext call = Context.current().withCancellation();
        try {
          return call.call(
              () -> {
                assertThat(ClientCalls.blockingServerStreamingCall(as(key), m, options, empty))
                    .hasNext();
                return Status.Code.OK;
              });
        } catch (StatusRuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IllegalStateException(e);
        } finally {
          call.cancel(null);
        }
      }
      ClientCalls.blockingUnaryCall(as(key), m, options, empty);
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.PERMISSION_DENIED) {
        assertThat(e.getStatus().getDescription())
            .as("the refusal of %s names a role", method.getFullMethodName())
            .contains("role");
      }
      return e.getStatus().getCode();
    }
  }

  @Test
  void everyMethodHasARuleAndEveryRoleGetsExactlyItsMethods() {
    List<String> mismatches = new ArrayList<>();
    for (MethodDescriptor<?, ?> method : adminMethods()) {
      String name = method.getBareMethodName();
      assertThat(AdminAction.ofMethod(name)).as("a rule for %s", name).isPresent();
      AdminAction action = AdminAction.ofMethod(name).orElseThrow();
      for (Role role : Role.values()) {
        boolean allowed = role == Role.ADMIN || role == action.role();
        Status.Code code = callEmpty(keys.get(role), method);
        boolean denied = code == Status.Code.PERMISSION_DENIED;
        assertThat(code).isNotEqualTo(Status.Code.UNAUTHENTICATED);
        if (allowed == denied) {
          mismatches.add(name + " as " + role + ": " + code);
        }
      }
    }
    assertThat(mismatches).isEmpty();
  }

  @Test
  void everyActionNamesAMethodOfAnAdminService() {
    List<String> methods =
        adminMethods().stream().map(MethodDescriptor::getBareMethodName).toList();
    assertThat(Arrays.stream(AdminAction.values()).map(AdminAction::method))
        .allSatisfy(m -> assertThat(methods).contains(m));
  }

  @Test
  void theRefusalNamesTheRoleItNeeds() {
    assertThatThrownBy(
            () ->
                identityAdmin(keys.get(Role.DEDUCTION_READER))
                    .rotateSalts(
                        dev.veil.grpc.identity.admin.v1.RotateSaltsRequest.newBuilder()
                            .setFraction(0.5)
                            .build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
              assertThat(e.getStatus().getDescription())
                  .isEqualTo(
                      "RotateSalts needs the KEY_ADMIN role (or ADMIN), which the API key does"
                          + " not have");
            });
  }

  @Test
  void aPublicApiRoleIsNoOperatorRole() {
    assertThatThrownBy(
            () ->
                identityAdmin(keys.get(Role.MAPPER))
                    .listClients(
                        dev.veil.grpc.identity.admin.v1.ListClientsRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
              assertThat(e.getStatus().getDescription()).contains("no operator role");
            });
  }

  private Status.Code reflect(String key) throws Exception {
    CompletableFuture<Status.Code> done = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests =
        ServerReflectionGrpc.newStub(as(key))
            .serverReflectionInfo(
                new StreamObserver<ServerReflectionResponse>() {
                  @Override
                  public void onNext(ServerReflectionResponse value) {
                    done.complete(Status.Code.OK);
                  }

                  @Override
                  public void onError(Throwable t) {
                    done.complete(Status.fromThrowable(t).getCode());
                  }

                  @Override
                  public void onCompleted() {
                    done.complete(Status.Code.OK);
                  }
                });
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
    requests.onCompleted();
    return done.get(30, TimeUnit.SECONDS);
  }

  @Test
  void reflectionAnswersAnyOperatorRoleAndNoOther() throws Exception {
    assertThat(reflect(keys.get(Role.DEDUCTION_READER))).isEqualTo(Status.Code.OK);
    assertThat(reflect(keys.get(Role.AUDIT_READER))).isEqualTo(Status.Code.OK);
    assertThat(reflect(keys.get(Role.GENERATOR))).isEqualTo(Status.Code.PERMISSION_DENIED);
  }

  private static CreateClientRequest create(String name, String... roles) {
    return CreateClientRequest.newBuilder().setName(name).addAllRoles(List.of(roles)).build();
  }

  @Test
  void aClientAdminGrantsApiRolesAndOnlyTheOperatorRolesItHolds() {
    String clientAdmin =
        server
            .node()
            .newClientKey("clients and deductions", Role.CLIENT_ADMIN, Role.DEDUCTION_READER);
    IdentityAdminApiBlockingStub stub = identityAdmin(clientAdmin);

    assertThat(
            stub.createClient(create("mapper", "MAPPER", "GENERATOR")).getClient().getRolesList())
        .containsExactly("GENERATOR", "MAPPER");
    assertThat(
            stub.createClient(create("reader", "DEDUCTION_READER", "CLIENT_ADMIN"))
                .getClient()
                .getRolesList())
        .containsExactly("CLIENT_ADMIN", "DEDUCTION_READER");
    for (String role : List.of("KEY_ADMIN", "DEDUCTION_WRITER", "ADMIN")) {
      assertThatThrownBy(() -> stub.createClient(create("more", "MAPPER", role)))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
                assertThat(e.getStatus().getDescription())
                    .startsWith("roles: only a client that holds " + role + " may grant it");
              });
    }
    assertThat(server.node().services().clients().list()).noneMatch(c -> c.name().equals("more"));
  }

  @Test
  void anOperatorChangesOnlyClientsWhoseOperatorRolesItHolds() {
    String clientAdmin = server.node().newClientKey("client admin", Role.CLIENT_ADMIN);
    long mapper = server.node().newClient("a mapper", Role.MAPPER).client().id();
    long keyAdmin = server.node().newClient("a key admin", Role.KEY_ADMIN).client().id();
    long admin =
        server.node().services().clients().list().stream()
            .filter(c -> c.roles().contains(Role.ADMIN))
            .findFirst()
            .orElseThrow()
            .id();
    IdentityAdminApiBlockingStub stub = identityAdmin(clientAdmin);

    assertThat(
            stub.rotateClientKey(RotateClientKeyRequest.newBuilder().setClientId(mapper).build())
                .getApiKey())
        .isNotBlank();
    assertThat(
            stub.setClientEnabled(
                    SetClientEnabledRequest.newBuilder()
                        .setClientId(mapper)
                        .setEnabled(false)
                        .build())
                .getClient()
                .getEnabled())
        .isFalse();

    for (long target : List.of(keyAdmin, admin)) {
      List<Runnable> calls =
          List.of(
              () ->
                  stub.setClientEnabled(
                      SetClientEnabledRequest.newBuilder()
                          .setClientId(target)
                          .setEnabled(false)
                          .build()),
              () ->
                  stub.rotateClientKey(
                      RotateClientKeyRequest.newBuilder().setClientId(target).build()),
              () ->
                  stub.rotateClientSecret(
                      RotateClientSecretRequest.newBuilder().setClientId(target).build()));
      for (Runnable call : calls) {
        assertThatThrownBy(call::run)
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> {
                  assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
                  assertThat(e.getStatus().getDescription())
                      .startsWith("client " + target + " holds ");
                });
      }
    }
    assertThat(server.node().services().clients().registry().byId(keyAdmin).enabled()).isTrue();
    assertThat(server.node().services().clients().registry().byId(admin).enabled()).isTrue();

    // ADMIN holds every operator role, so it may change the key admin.
    assertThat(
            server
                .admin()
                .setClientEnabled(
                    SetClientEnabledRequest.newBuilder()
                        .setClientId(keyAdmin)
                        .setEnabled(false)
                        .build())
                .getClient()
                .getEnabled())
        .isFalse();
  }

  @Test
  void aDisabledOperatorIsUnauthenticated() {
    var created = server.node().newClient("leaving", Role.AUDIT_READER);
    server.node().services().clients().setEnabled(created.client().id(), false);
    assertThatThrownBy(
            () ->
                identityAdmin(created.key().reveal())
                    .listClients(
                        dev.veil.grpc.identity.admin.v1.ListClientsRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
  }
}

package dev.veil.grpc;

import static dev.veil.grpc.testing.Statuses.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.ClientSecret;
import dev.veil.core.crypto.Sha256;
import dev.veil.core.token.EncryptionKey;
import dev.veil.grpc.identity.admin.v1.BucketIdList;
import dev.veil.grpc.identity.admin.v1.Client;
import dev.veil.grpc.identity.admin.v1.CreateClientRequest;
import dev.veil.grpc.identity.admin.v1.CreateClientResponse;
import dev.veil.grpc.identity.admin.v1.EncryptionKeyInfo;
import dev.veil.grpc.identity.admin.v1.GetSaltStatusRequest;
import dev.veil.grpc.identity.admin.v1.GetSaltStatusResponse;
import dev.veil.grpc.identity.admin.v1.Identity;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import dev.veil.grpc.identity.admin.v1.KeyState;
import dev.veil.grpc.identity.admin.v1.ListClientsRequest;
import dev.veil.grpc.identity.admin.v1.ListKeysRequest;
import dev.veil.grpc.identity.admin.v1.ListKeysResponse;
import dev.veil.grpc.identity.admin.v1.LookupOptOutRequest;
import dev.veil.grpc.identity.admin.v1.LookupOptOutResponse;
import dev.veil.grpc.identity.admin.v1.RecordOptOutRequest;
import dev.veil.grpc.identity.admin.v1.RecordOptOutResponse;
import dev.veil.grpc.identity.admin.v1.RotateClientKeyRequest;
import dev.veil.grpc.identity.admin.v1.RotateClientKeyResponse;
import dev.veil.grpc.identity.admin.v1.RotateClientSecretRequest;
import dev.veil.grpc.identity.admin.v1.RotateClientSecretResponse;
import dev.veil.grpc.identity.admin.v1.RotateKeysRequest;
import dev.veil.grpc.identity.admin.v1.RotateKeysResponse;
import dev.veil.grpc.identity.admin.v1.RotateSaltsRequest;
import dev.veil.grpc.identity.admin.v1.SetClientEnabledRequest;
import dev.veil.testing.InMemoryNode;
import dev.veil.testing.InMemoryStores.Part;
import dev.veil.testing.RunningAdminServer;
import dev.veil.testing.TestConfigs;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every IdentityAdminApi RPC through the admin server (its interceptors included) over gRPC's
 * in-process transport: happy paths and refused input. The admin port itself is {@link
 * AdminGrpcServerIT}'s.
 */
class IdentityAdminServiceIT {
  /** Master, refresh, and the keyset of the admin client's own site. */
  private static final int KEYSETS = 3;

  private final RunningAdminServer server = RunningAdminServer.inProcess();
  private final InMemoryNode node = server.node();
  private final IdentityAdminApiBlockingStub admin = server.admin();

  @AfterEach
  void stop() throws InterruptedException {
    server.close();
  }

  private static CreateClientRequest createRequest(String name, String... roles) {
    return CreateClientRequest.newBuilder().setName(name).addAllRoles(List.of(roles)).build();
  }

  private static Identity email(String address) {
    return Identity.newBuilder().setEmail(address).build();
  }

  // --- clients ---

  @Test
  void createClient_returnsEnabledClientAndAKeyThatAuthenticates() {
    CreateClientResponse created =
        admin.createClient(
            CreateClientRequest.newBuilder()
                .setName("  Publisher One ")
                .setSiteId(42)
                .addRoles("generator")
                .addRoles("MAPPER")
                .build());

    Client client = created.getClient();
    assertThat(client.getName()).isEqualTo("Publisher One");
    assertThat(client.getSiteId()).isEqualTo(42);
    assertThat(client.getRolesList()).containsExactly("GENERATOR", "MAPPER");
    assertThat(client.getEnabled()).isTrue();
    assertThat(client.getCreatedMs()).isEqualTo(RunningAdminServer.START.toEpochMilli());
    assertThat(created.getApiKey()).startsWith("vk1." + client.getKeyId() + ".");
    assertThat(node.services().authenticator().authenticate("Bearer " + created.getApiKey()))
        .hasValueSatisfying(c -> assertThat(c.id()).isEqualTo(client.getId()));
  }

  /**
   * The node's catch-up holds the client registry's lock while its read of the store hangs (a
   * frozen database): a create waiting for that lock is refused at db.timeout, not when the read
   * ends.
   */
  @Test
  void createClient_whileTheCatchUpHangsOnTheStore_isUnavailableAtDbTimeout() throws Exception {
    try (RunningAdminServer quick = RunningAdminServer.inProcess(List.of(), "db.timeout", "1s")) {
      CountDownLatch gate = new CountDownLatch(1);
      CountDownLatch entered = new CountDownLatch(1);
      quick.node().store().holdCalls(c -> c.part() == Part.CLIENTS && !c.write(), gate, entered);
      Thread catchUp = new Thread(() -> quick.node().services().clients().catchUp());
      catchUp.start();
      try {
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        long start = System.nanoTime();
        Status status = statusOf(() -> quick.admin().createClient(createRequest("late", "MAPPER")));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(took)
            .as("refused at db.timeout (1 s), with room for a loaded machine")
            .isLessThan(Duration.ofSeconds(4));
      } finally {
        gate.countDown();
        catchUp.join(10_000);
      }
      assertThat(quick.admin().createClient(createRequest("after", "MAPPER")).getClient().getName())
          .isEqualTo("after");
    }
  }

  @Test
  void createClient_withSiteIdZero_getsItsOwnSiteAndKeyset() {
    Client client = admin.createClient(createRequest("own site", "GENERATOR")).getClient();

    assertThat(client.getSiteId()).isEqualTo((int) client.getId());
    assertThat(node.services().keys().ring().newestKey(client.getSiteId())).isPresent();
  }

  @Test
  void createClient_withBlankName_isInvalidArgumentSayingItIsBlank() {
    for (String blank :
        List.of("", "   ", "\u00a0\u00a0", "\u200b", " \u2060\ufeff\u202e\u2007 ", "\u3164")) {
      Status status = statusOf(() -> admin.createClient(createRequest(blank, "MAPPER")));

      assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(status.getDescription()).isEqualTo("name must not be blank");
    }
    assertThat(admin.listClients(ListClientsRequest.getDefaultInstance()).getClientsCount())
        .isEqualTo(1);
  }

  @Test
  void createClient_countsTheNameInCodePoints() {
    String emoji = "\uD83D\uDE00"; // one code point, two UTF-16 units

    assertThat(admin.createClient(createRequest(emoji.repeat(65), "MAPPER")).getClient().getName())
        .isEqualTo(emoji.repeat(65));
    assertThat(admin.createClient(createRequest(emoji.repeat(128), "MAPPER")).getClient().getName())
        .isEqualTo(emoji.repeat(128));
    Status tooLong = statusOf(() -> admin.createClient(createRequest(emoji.repeat(129), "MAPPER")));
    assertThat(tooLong.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(tooLong.getDescription()).isEqualTo("name must be at most 128 characters");
    assertThat(
            statusOf(() -> admin.createClient(createRequest("n".repeat(129), "MAPPER")))
                .getDescription())
        .isEqualTo("name must be at most 128 characters");
  }

  @Test
  void createClient_withVisibleTextAmongInvisibleCharacters_keepsTheName() {
    Client client = admin.createClient(createRequest("\u00a0a\u200b", "MAPPER")).getClient();

    assertThat(client.getName()).isEqualTo("\u00a0a\u200b");
  }

  @Test
  void createClient_withControlCharactersInName_isInvalidArgument() {
    Status status =
        statusOf(() -> admin.createClient(createRequest("evil\u001b[2Jname", "MAPPER")));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains("control characters");
  }

  @Test
  void createClient_withUnknownRole_isInvalidArgumentListingTheKnownRoles() {
    Status status = statusOf(() -> admin.createClient(createRequest("x", "MAPPER", "SUPERUSER")));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription())
        .contains("SUPERUSER")
        .contains("GENERATOR, MAPPER, OPTOUT, ID_READER, SHARER, ADMIN");
  }

  @Test
  void createClient_withUnknownRoleThatLooksLikePersonalData_doesNotEchoIt() {
    Status status = statusOf(() -> admin.createClient(createRequest("x", "jane@example.com")));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).doesNotContain("jane");
  }

  @Test
  void createClient_withoutRoles_isInvalidArgument() {
    Status status = statusOf(() -> admin.createClient(createRequest("no roles")));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains("at least one role");
  }

  @Test
  void createClient_withNegativeSiteId_isInvalidArgument() {
    Status status =
        statusOf(
            () ->
                admin.createClient(
                    CreateClientRequest.newBuilder()
                        .setName("x")
                        .setSiteId(-5)
                        .addRoles("MAPPER")
                        .build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void listClients_returnsEveryClientOrderedById() {
    admin.createClient(createRequest("b", "MAPPER"));
    admin.createClient(createRequest("c", "OPTOUT", "ID_READER"));

    List<Client> clients =
        admin.listClients(ListClientsRequest.getDefaultInstance()).getClientsList();

    assertThat(clients)
        .extracting(Client::getName)
        .containsExactly(InMemoryNode.ADMIN_NAME, "b", "c");
    assertThat(clients).extracting(Client::getId).isSorted();
    assertThat(clients.get(2).getRolesList()).containsExactly("OPTOUT", "ID_READER");
  }

  @Test
  void setClientEnabled_false_disablesTheClientAndItsKeyAtOnce() {
    CreateClientResponse other = admin.createClient(createRequest("second admin", "ADMIN"));
    long id = other.getClient().getId();

    Client disabled =
        admin
            .setClientEnabled(
                SetClientEnabledRequest.newBuilder().setClientId(id).setEnabled(false).build())
            .getClient();

    assertThat(disabled.getEnabled()).isFalse();
    Status status =
        statusOf(
            () ->
                server
                    .withAuthorization("Bearer " + other.getApiKey())
                    .listClients(ListClientsRequest.getDefaultInstance()));
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
  }

  @Test
  void setClientEnabled_false_onTheLastEnabledAdmin_isRefused_andTheAdminKeepsWorking() {
    long adminId = admin.listClients(ListClientsRequest.getDefaultInstance()).getClients(0).getId();

    Status status =
        statusOf(
            () ->
                admin.setClientEnabled(
                    SetClientEnabledRequest.newBuilder()
                        .setClientId(adminId)
                        .setEnabled(false)
                        .build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains("last enabled ADMIN client");
    assertThat(
            admin.listClients(ListClientsRequest.getDefaultInstance()).getClients(0).getEnabled())
        .isTrue();
  }

  @Test
  void setClientEnabled_false_onTheFirstAdmin_isAllowed_onceAnotherAdminIsEnabled() {
    long firstId = admin.listClients(ListClientsRequest.getDefaultInstance()).getClients(0).getId();
    CreateClientResponse second = admin.createClient(createRequest("second admin", "ADMIN"));

    Client disabled =
        server
            .withAuthorization("Bearer " + second.getApiKey())
            .setClientEnabled(
                SetClientEnabledRequest.newBuilder().setClientId(firstId).setEnabled(false).build())
            .getClient();

    assertThat(disabled.getEnabled()).isFalse();
    Status refused =
        statusOf(
            () ->
                server
                    .withAuthorization("Bearer " + second.getApiKey())
                    .setClientEnabled(
                        SetClientEnabledRequest.newBuilder()
                            .setClientId(second.getClient().getId())
                            .setEnabled(false)
                            .build()));
    assertThat(refused.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void setClientEnabled_true_enablesADisabledClientAgain() {
    CreateClientResponse other = admin.createClient(createRequest("second admin", "ADMIN"));
    long id = other.getClient().getId();
    admin.setClientEnabled(
        SetClientEnabledRequest.newBuilder().setClientId(id).setEnabled(false).build());

    Client enabled =
        admin
            .setClientEnabled(
                SetClientEnabledRequest.newBuilder().setClientId(id).setEnabled(true).build())
            .getClient();

    assertThat(enabled.getEnabled()).isTrue();
    assertThat(
            server
                .withAuthorization("Bearer " + other.getApiKey())
                .listClients(ListClientsRequest.getDefaultInstance())
                .getClientsCount())
        .isEqualTo(2);
  }

  @Test
  void setClientEnabled_unknownClient_isNotFound() {
    Status status =
        statusOf(
            () ->
                admin.setClientEnabled(
                    SetClientEnabledRequest.newBuilder()
                        .setClientId(999)
                        .setEnabled(false)
                        .build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(status.getDescription()).contains("999");
  }

  @Test
  void rotateClientKey_returnsANewKey_andTheOldKeyStopsWorking() {
    CreateClientResponse created = admin.createClient(createRequest("rotating", "ADMIN"));

    RotateClientKeyResponse rotated =
        admin.rotateClientKey(
            RotateClientKeyRequest.newBuilder().setClientId(created.getClient().getId()).build());

    assertThat(rotated.getApiKey()).isNotEqualTo(created.getApiKey());
    assertThat(rotated.getClient().getKeyId()).isNotEqualTo(created.getClient().getKeyId());
    assertThat(node.services().authenticator().authenticate("Bearer " + created.getApiKey()))
        .isEmpty();
    assertThat(node.services().authenticator().authenticate("Bearer " + rotated.getApiKey()))
        .isPresent();
  }

  @Test
  void rotateClientKey_unknownClient_isNotFound() {
    Status status =
        statusOf(
            () ->
                admin.rotateClientKey(RotateClientKeyRequest.newBuilder().setClientId(0).build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
  }

  @Test
  void createClient_returnsA32ByteSecret_thatTheNodeHolds_andListingNeverShows() {
    CreateClientResponse created = admin.createClient(createRequest("v2 publisher", "GENERATOR"));
    CreateClientResponse other = admin.createClient(createRequest("v2 other", "GENERATOR"));

    byte[] secret = Base64.getDecoder().decode(created.getSecret());
    assertThat(secret).hasSize(32);
    assertThat(created.getSecret()).hasSize(44).isNotEqualTo(other.getSecret());
    assertThat(node.services().clients().registry().byId(created.getClient().getId()).secret())
        .isEqualTo(ClientSecret.of(secret));
    String listed = admin.listClients(ListClientsRequest.getDefaultInstance()).toString();
    assertThat(listed).doesNotContain(created.getSecret()).doesNotContain("secret");
  }

  @Test
  void rotateClientSecret_returnsANewSecret_keepsTheKey_andTheNodeHoldsOnlyTheNewOne() {
    CreateClientResponse created = admin.createClient(createRequest("rotating secret", "MAPPER"));
    long id = created.getClient().getId();

    RotateClientSecretResponse rotated =
        admin.rotateClientSecret(RotateClientSecretRequest.newBuilder().setClientId(id).build());

    assertThat(rotated.getSecret()).hasSize(44).isNotEqualTo(created.getSecret());
    assertThat(rotated.getClient().getKeyId()).isEqualTo(created.getClient().getKeyId());
    assertThat(node.services().clients().registry().byId(id).secret())
        .isEqualTo(ClientSecret.of(Base64.getDecoder().decode(rotated.getSecret())));
    assertThat(node.services().authenticator().authenticate("Bearer " + created.getApiKey()))
        .isPresent();
  }

  @Test
  void rotateClientSecret_unknownClient_isNotFound() {
    Status status =
        statusOf(
            () ->
                admin.rotateClientSecret(
                    RotateClientSecretRequest.newBuilder().setClientId(0).build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
  }

  // --- keys ---

  @Test
  void listKeys_returnsMetadataOfEveryKeyset() {
    List<EncryptionKeyInfo> keys =
        admin.listKeys(ListKeysRequest.getDefaultInstance()).getKeysList();

    assertThat(keys)
        .extracting(EncryptionKeyInfo::getSiteId)
        .containsExactlyInAnyOrder(EncryptionKey.MASTER_SITE_ID, EncryptionKey.REFRESH_SITE_ID, 1);
    assertThat(keys)
        .allSatisfy(
            k -> {
              assertThat(k.getState()).isEqualTo(KeyState.KEY_STATE_ACTIVE);
              assertThat(k.getActivatesMs()).isEqualTo(RunningAdminServer.START.toEpochMilli());
              assertThat(k.getExpiresMs()).isGreaterThan(k.getActivatesMs());
            });
  }

  @Test
  void listKeys_neverSendsKeyMaterial() {
    ListKeysResponse response = admin.listKeys(ListKeysRequest.getDefaultInstance());
    byte[] wire = response.toByteArray();

    for (EncryptionKey key : node.keyMaterial()) {
      assertThat(indexOf(wire, key.secret())).isEqualTo(-1);
    }
  }

  @Test
  void rotateKeys_forGivenKeysets_createsOnePendingKeyEach() {
    RotateKeysResponse rotated =
        admin.rotateKeys(
            RotateKeysRequest.newBuilder()
                .addSiteIds(EncryptionKey.MASTER_SITE_ID)
                .addSiteIds(EncryptionKey.MASTER_SITE_ID)
                .build());

    assertThat(rotated.getCreatedList())
        .singleElement()
        .satisfies(
            k -> {
              assertThat(k.getSiteId()).isEqualTo(EncryptionKey.MASTER_SITE_ID);
              assertThat(k.getState()).isEqualTo(KeyState.KEY_STATE_PENDING);
            });
    assertThat(admin.listKeys(ListKeysRequest.getDefaultInstance()).getKeysCount())
        .isEqualTo(KEYSETS + 1);
  }

  @Test
  void rotateKeys_withoutSiteIds_rotatesEveryKeyset() {
    RotateKeysResponse rotated = admin.rotateKeys(RotateKeysRequest.getDefaultInstance());

    assertThat(rotated.getCreatedList())
        .extracting(EncryptionKeyInfo::getSiteId)
        .containsExactlyInAnyOrder(EncryptionKey.MASTER_SITE_ID, EncryptionKey.REFRESH_SITE_ID, 1);
  }

  @Test
  void rotateKeys_pendingKeyBecomesActiveAfterTheActivationDelay() {
    admin.rotateKeys(
        RotateKeysRequest.newBuilder().addSiteIds(EncryptionKey.REFRESH_SITE_ID).build());
    node.clock().advance(node.services().keys().policy().activationDelay());

    assertThat(admin.listKeys(ListKeysRequest.getDefaultInstance()).getKeysList())
        .extracting(EncryptionKeyInfo::getState)
        .containsOnly(KeyState.KEY_STATE_ACTIVE);
  }

  @Test
  void rotateKeys_forASiteWithoutKeyset_isNotFoundAndCreatesNothing() {
    Status status =
        statusOf(() -> admin.rotateKeys(RotateKeysRequest.newBuilder().addSiteIds(777).build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(status.getDescription()).contains("777");
    assertThat(node.services().keys().ring().size()).isEqualTo(KEYSETS);
  }

  // --- salts ---

  @Test
  void rotateSalts_byFraction_rotatesThatShareOfBuckets() {
    int rotated =
        admin
            .rotateSalts(RotateSaltsRequest.newBuilder().setFraction(0.25).build())
            .getRotatedBuckets();

    assertThat(rotated).isEqualTo(TestConfigs.BUCKETS / 4);
    assertThat(node.services().salts().current().rotatedCount()).isEqualTo(TestConfigs.BUCKETS / 4);
  }

  @Test
  void rotateSalts_byBucketIds_rotatesExactlyThoseBuckets() {
    var snapshot = node.services().salts().current();
    RotateSaltsRequest request =
        RotateSaltsRequest.newBuilder()
            .setBuckets(
                BucketIdList.newBuilder()
                    .addBucketIds(snapshot.bucketId(3))
                    .addBucketIds(snapshot.bucketId(7)))
            .build();

    int rotated = admin.rotateSalts(request).getRotatedBuckets();

    assertThat(rotated).isEqualTo(2);
    var after = node.services().salts().current();
    assertThat(after.generation(3)).isEqualTo(1);
    assertThat(after.generation(7)).isEqualTo(1);
    assertThat(after.generation(4)).isZero();
  }

  @Test
  void rotateSalts_withFractionOutOfRange_isInvalidArgument() {
    for (double fraction : new double[] {0, -0.1, 1.5, Double.NaN}) {
      Status status =
          statusOf(
              () ->
                  admin.rotateSalts(RotateSaltsRequest.newBuilder().setFraction(fraction).build()));

      assertThat(status.getCode())
          .as("fraction %s", fraction)
          .isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(status.getDescription()).contains("fraction");
    }
    assertThat(node.services().salts().current().rotatedCount()).isZero();
  }

  @Test
  void rotateSalts_withUnknownBucketId_isNotFoundAsTheProtoSays_andRotatesNothing() {
    var snapshot = node.services().salts().current();
    RotateSaltsRequest request =
        RotateSaltsRequest.newBuilder()
            .setBuckets(
                BucketIdList.newBuilder()
                    .addBucketIds(snapshot.bucketId(1))
                    .addBucketIds("AAAAAAAAAAAA"))
            .build();

    Status status = statusOf(() -> admin.rotateSalts(request));

    assertThat(status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(status.getDescription()).contains("unknown bucket id");
    assertThat(node.services().salts().current().rotatedCount()).isZero();
  }

  @Test
  void rotateSalts_withMalformedBucketId_isInvalidArgumentWithoutEchoingIt() {
    RotateSaltsRequest request =
        RotateSaltsRequest.newBuilder()
            .setBuckets(BucketIdList.newBuilder().addBucketIds("jane@example.com"))
            .build();

    Status status = statusOf(() -> admin.rotateSalts(request));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains("bucket_ids[0]").doesNotContain("jane");
  }

  @Test
  void rotateSalts_withEmptyBucketList_isInvalidArgument() {
    Status status =
        statusOf(
            () ->
                admin.rotateSalts(
                    RotateSaltsRequest.newBuilder()
                        .setBuckets(BucketIdList.getDefaultInstance())
                        .build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void rotateSalts_withoutTarget_isInvalidArgument() {
    Status status = statusOf(() -> admin.rotateSalts(RotateSaltsRequest.getDefaultInstance()));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains("fraction").contains("buckets");
  }

  @Test
  void getSaltStatus_reportsBucketCountRotationsAndOldestSalt() {
    GetSaltStatusResponse before = admin.getSaltStatus(GetSaltStatusRequest.getDefaultInstance());
    node.clock().advance(Duration.ofMinutes(5));
    admin.rotateSalts(RotateSaltsRequest.newBuilder().setFraction(1).build());

    GetSaltStatusResponse after = admin.getSaltStatus(GetSaltStatusRequest.getDefaultInstance());

    assertThat(before.getBucketCount()).isEqualTo(TestConfigs.BUCKETS);
    assertThat(before.getRotatedBuckets()).isZero();
    assertThat(before.getOldestSaltMs()).isEqualTo(RunningAdminServer.START.toEpochMilli());
    assertThat(before.getLastDailyRotationDay()).isEqualTo("2026-03-01");
    assertThat(after.getRotatedBuckets()).isEqualTo(TestConfigs.BUCKETS);
    assertThat(after.getOldestSaltMs())
        .isEqualTo(RunningAdminServer.START.plus(Duration.ofMinutes(5)).toEpochMilli());
  }

  // --- opt-outs ---

  @Test
  void recordOptOut_byEmail_isFoundByItsHashAndTakesEffectInMemory() {
    RecordOptOutResponse recorded =
        admin.recordOptOut(
            RecordOptOutRequest.newBuilder().setIdentity(email(" Jane.Doe@Example.com")).build());
    String hash =
        Base64.getEncoder()
            .encodeToString(Sha256.digest("jane.doe@example.com".getBytes(StandardCharsets.UTF_8)));

    LookupOptOutResponse found =
        admin.lookupOptOut(
            LookupOptOutRequest.newBuilder()
                .setIdentity(Identity.newBuilder().setEmailHash(hash))
                .build());

    assertThat(recorded.getOptedOutMs()).isEqualTo(RunningAdminServer.START.toEpochMilli());
    assertThat(found.getOptedOut()).isTrue();
    assertThat(found.getOptedOutMs()).isEqualTo(recorded.getOptedOutMs());
    assertThat(node.services().optOuts().size()).isEqualTo(1);
  }

  @Test
  void recordOptOut_byPhoneHashInHex_isFoundByThePhone() {
    String hex =
        HexFormat.of().formatHex(Sha256.digest("+12025550123".getBytes(StandardCharsets.UTF_8)));
    admin.recordOptOut(
        RecordOptOutRequest.newBuilder()
            .setIdentity(Identity.newBuilder().setPhoneHash(hex))
            .build());

    LookupOptOutResponse found =
        admin.lookupOptOut(
            LookupOptOutRequest.newBuilder()
                .setIdentity(Identity.newBuilder().setPhone("+12025550123"))
                .build());

    assertThat(found.getOptedOut()).isTrue();
  }

  @Test
  void recordOptOut_twice_keepsTheFirstTime() {
    RecordOptOutRequest request =
        RecordOptOutRequest.newBuilder().setIdentity(email("a@example.com")).build();
    long first = admin.recordOptOut(request).getOptedOutMs();
    node.clock().advance(Duration.ofDays(1));

    long second = admin.recordOptOut(request).getOptedOutMs();

    assertThat(second).isEqualTo(first);
  }

  @Test
  void lookupOptOut_forAnIdentityThatDidNotOptOut_saysSo() {
    LookupOptOutResponse found =
        admin.lookupOptOut(
            LookupOptOutRequest.newBuilder().setIdentity(email("nobody@example.com")).build());

    assertThat(found.getOptedOut()).isFalse();
    assertThat(found.getOptedOutMs()).isZero();
  }

  @Test
  void recordOptOut_withInvalidEmail_isInvalidArgumentWithoutEchoingIt() {
    Status status =
        statusOf(
            () ->
                admin.recordOptOut(
                    RecordOptOutRequest.newBuilder()
                        .setIdentity(email("jane.doe-at-example.com"))
                        .build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).isEqualTo("invalid email").doesNotContain("jane");
    assertThat(node.services().optOuts().size()).isZero();
  }

  @Test
  void lookupOptOut_withMalformedHash_isInvalidArgument() {
    Status status =
        statusOf(
            () ->
                admin.lookupOptOut(
                    LookupOptOutRequest.newBuilder()
                        .setIdentity(Identity.newBuilder().setEmailHash("not-a-hash"))
                        .build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).isEqualTo("invalid email_hash");
  }

  @Test
  void recordOptOut_withoutIdentity_isInvalidArgument() {
    Status status = statusOf(() -> admin.recordOptOut(RecordOptOutRequest.getDefaultInstance()));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains("email, email_hash, phone, phone_hash");
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}

package dev.veil.grpc;

import dev.veil.client.ApiClient;
import dev.veil.client.Role;
import dev.veil.common.VeilException;
import dev.veil.core.identity.IdentityInput;
import dev.veil.core.token.EncryptionKey;
import dev.veil.grpc.identity.admin.v1.Client;
import dev.veil.grpc.identity.admin.v1.EncryptionKeyInfo;
import dev.veil.grpc.identity.admin.v1.Identity;
import dev.veil.grpc.identity.admin.v1.KeyState;
import java.time.Instant;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Field mapping between {@code protocol.identity.admin.v1} messages and domain types. Outgoing
 * messages carry metadata only: never key material, salts, hashes or personal data. Incoming values
 * that do not parse throw {@link VeilException#clientError} with a message that names the field but
 * never repeats a value that could be personal data.
 */
final class AdminMessages {
  private static final Pattern ROLE_WORD = Pattern.compile("[A-Za-z_]{1,32}");
  private static final Pattern BUCKET_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final String ROLE_NAMES =
      Arrays.stream(Role.values()).map(Role::name).collect(Collectors.joining(", "));

  private AdminMessages() {}

  static Client client(ApiClient c) {
    return Client.newBuilder()
        .setId(c.id())
        .setName(c.name())
        .setSiteId(c.siteId())
        .addAllRoles(c.roles().stream().sorted().map(Role::name).toList())
        .setEnabled(c.enabled())
        .setCreatedMs(c.created().toEpochMilli())
        .setKeyId(c.key().keyId())
        .build();
  }

  /** Key metadata and its state at {@code now}; the secret is not read. */
  static EncryptionKeyInfo keyInfo(EncryptionKey k, Instant now) {
    KeyState state =
        k.isExpired(now)
            ? KeyState.KEY_STATE_EXPIRED
            : now.isBefore(k.activates()) ? KeyState.KEY_STATE_PENDING : KeyState.KEY_STATE_ACTIVE;
    return EncryptionKeyInfo.newBuilder()
        .setId(k.id())
        .setSiteId(k.siteId())
        .setCreatedMs(k.created().toEpochMilli())
        .setActivatesMs(k.activates().toEpochMilli())
        .setExpiresMs(k.expires().toEpochMilli())
        .setState(state)
        .build();
  }

  /** Role names, case-insensitive; at least one, each known. */
  static Set<Role> roles(List<String> names) {
    if (names.isEmpty()) {
      throw VeilException.clientError("roles: at least one role is required (" + ROLE_NAMES + ")");
    }
    Set<Role> roles = EnumSet.noneOf(Role.class);
    for (String name : names) {
      String word = name.strip();
      try {
        roles.add(Role.valueOf(word.toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException unknown) {
        String shown = ROLE_WORD.matcher(word).matches() ? "'" + word + "'" : "value";
        throw VeilException.clientError(
            "roles: unknown role " + shown + "; known roles are " + ROLE_NAMES);
      }
    }
    return roles;
  }

  /** A client name: the domain checks length and blankness; control characters are refused here. */
  static String clientName(String name) {
    if (name.chars().anyMatch(Character::isISOControl)) {
      throw VeilException.clientError("name: must not contain control characters");
    }
    return name;
  }

  /**
   * Bucket ids: at least one, each in the bucket id alphabet (unknown ids are the domain's call).
   */
  static List<String> bucketIds(List<String> ids) {
    if (ids.isEmpty()) {
      throw VeilException.clientError("buckets: at least one bucket id is required");
    }
    for (int i = 0; i < ids.size(); i++) {
      if (!BUCKET_ID.matcher(ids.get(i)).matches()) {
        throw VeilException.clientError("buckets: bucket_ids[" + i + "] is not a bucket id");
      }
    }
    return ids;
  }

  /** Which input kind and value an {@link Identity} holds. */
  record IdentityValue(IdentityInput input, String value) {}

  static IdentityValue identity(Identity identity) {
    return switch (identity.getValueCase()) {
      case EMAIL -> new IdentityValue(IdentityInput.EMAIL, identity.getEmail());
      case EMAIL_HASH -> new IdentityValue(IdentityInput.EMAIL_HASH, identity.getEmailHash());
      case PHONE -> new IdentityValue(IdentityInput.PHONE, identity.getPhone());
      case PHONE_HASH -> new IdentityValue(IdentityInput.PHONE_HASH, identity.getPhoneHash());
      case VALUE_NOT_SET ->
          throw VeilException.clientError(
              "identity: set exactly one of email, email_hash, phone, phone_hash");
    };
  }

  static dev.veil.grpc.identity.admin.v1.AuditEvent auditEvent(dev.veil.audit.AuditEvent e) {
    return dev.veil.grpc.identity.admin.v1.AuditEvent.newBuilder()
        .setId(e.id())
        .setAtMs(e.at().toEpochMilli())
        .setActorClientId(e.actorId())
        .setActorName(e.actorName())
        .setAction(e.action())
        .setTarget(e.target())
        .setDetailsJson(e.details())
        .setReason(e.reason())
        .build();
  }
}

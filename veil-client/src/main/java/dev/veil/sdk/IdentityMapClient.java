package dev.veil.sdk;

import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.internal.ApiCaller;
import dev.veil.sdk.internal.BucketJson;
import dev.veil.sdk.internal.MapAnswer;
import dev.veil.sdk.internal.MapJson;
import dev.veil.sdk.internal.MapV3Json;
import dev.veil.sdk.internal.OptOutStatusJson;
import dev.veil.sdk.internal.V2Envelopes;
import dev.veil.sdk.internal.ValueList;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Maps identifiers to advertising ids for data collectors (role {@code MAPPER}).
 *
 * <pre>{@code
 * IdentityMapClient mapper = veil.mapper();
 * List<MapOutcome> outcomes = mapper.map(List.of(Identifier.email("a@example.com"),
 *     Identifier.phone("+12025550123")));
 * for (MapOutcome o : outcomes) {
 *   if (o instanceof MapOutcome.Mapped m) {
 *     audience.add(m.advertisingId(), m.bucketId());
 *   }
 * }
 * List<RotatedBucket> rotated = mapper.rotatedBuckets(lastPoll);   // then re-map their identifiers
 * }</pre>
 *
 * <p>To keep mappings and re-map them as salts rotate, use {@link MappingCache}, which does that
 * bookkeeping durably.
 *
 * <p>Every request is a {@code POST /v1/identity/map} with a JSON body, so identifiers never appear
 * in URLs. A large list is split into batches of at most {@link VeilClient#MAX_BATCH_SIZE}
 * identifiers (and under 1 MB of body), one per identifier kind, sent one after the other.
 * Identifiers that do not normalize are reported {@link MapOutcome.Reason#INVALID_IDENTIFIER}
 * without being sent. Obtain it from {@link VeilClient#mapper()}; immutable and thread-safe.
 */
public final class IdentityMapClient {
  private final VeilClient client;
  private final ApiCaller caller;

  IdentityMapClient(VeilClient client) {
    this(client, client.caller());
  }

  /** The client's mapper, sending its requests through {@code caller} (its own retries). */
  IdentityMapClient(VeilClient client, ApiCaller caller) {
    this.client = client;
    this.caller = caller;
  }

  /** Maps one identifier. Same contract as {@link #map(List)}. */
  public MapOutcome map(Identifier identifier) {
    return map(List.of(identifier)).get(0);
  }

  /** Maps identifiers; same as {@link #map(List, ProgressListener)} without progress. */
  public List<MapOutcome> map(List<Identifier> identifiers) {
    return map(identifiers, ProgressListener.NONE);
  }

  /**
   * Maps identifiers, in batches sent in sequence.
   *
   * @return one outcome per identifier, in the same order (duplicates included)
   * @throws VeilApiException if the server refuses a batch (e.g. 401 without the MAPPER role);
   *     batches before it were mapped, but their outcomes are not returned
   * @throws VeilTransportException if a batch gets no answer after retries
   */
  public List<MapOutcome> map(List<Identifier> identifiers, ProgressListener progress) {
    Objects.requireNonNull(progress, "progress");
    MapOutcome[] outcomes = new MapOutcome[identifiers.size()];
    Map<IdentityInput, List<Integer>> byKind = new EnumMap<>(IdentityInput.class);
    byte[][] sentValues = new byte[identifiers.size()][];
    for (int i = 0; i < outcomes.length; i++) {
      Identifier id = Objects.requireNonNull(identifiers.get(i), "identifier");
      Identifier sent = toSend(id);
      sentValues[i] = sent == null ? null : sent.value().getBytes(StandardCharsets.UTF_8);
      if (sent == null) {
        outcomes[i] = new MapOutcome.Unmapped(id, MapOutcome.Reason.INVALID_IDENTIFIER);
      } else {
        byKind.computeIfAbsent(sent.kind(), k -> new ArrayList<>()).add(i);
      }
    }
    long done = outcomes.length - byKind.values().stream().mapToLong(List::size).sum();
    for (Map.Entry<IdentityInput, List<Integer>> group : byKind.entrySet()) {
      for (List<Integer> batch : batches(group.getValue(), sentValues)) {
        ValueList values = new ValueList(batch.size(), batch.size() * 32);
        for (int index : batch) {
          values.add(sentValues[index], 0, sentValues[index].length);
        }
        MapAnswer answer = send(group.getKey(), values);
        for (int j = 0; j < answer.size(); j++) {
          int index = batch.get(j);
          outcomes[index] = outcome(identifiers.get(index), answer, j);
        }
        done += batch.size();
        progress.progress(done, outcomes.length);
      }
    }
    return Arrays.asList(outcomes);
  }

  /**
   * Buckets whose salt rotated after {@code since}, oldest rotation first. Poll it daily with the
   * time of your previous poll and re-map the identifiers you hold in these buckets that you mapped
   * before each bucket's {@link RotatedBucket#lastUpdated()}.
   */
  public List<RotatedBucket> rotatedBuckets(Instant since) {
    List<RotatedBucket> buckets = new ArrayList<>();
    pollRotated(since, buckets::clear, buckets::add);
    return buckets;
  }

  /**
   * Buckets whose salt rotated after {@code since}, handed to {@code sink} one at a time as the
   * answer is read, oldest rotation first, so that none is held here: a first poll can list every
   * bucket (about a million). If the answer breaks off and is read again (a retry), {@code sink}
   * sees its buckets again from the first, so keep them by bucket id:
   *
   * <pre>{@code
   * Map<String, Instant> rotated = new HashMap<>();
   * mapper.rotatedBuckets(lastPoll,
   *     b -> rotated.merge(b.bucketId(), b.lastUpdated(), (x, y) -> x.isAfter(y) ? x : y));
   * }</pre>
   *
   * @return how many buckets the answer listed
   */
  public long rotatedBuckets(Instant since, Consumer<RotatedBucket> sink) {
    Objects.requireNonNull(sink, "sink");
    return pollRotated(since, IdentityMapClient::noAction, sink);
  }

  /** What to do when nothing is to be done. */
  private static void noAction() {}

  /**
   * Streams the buckets rotated after {@code since} to {@code sink} without holding them all (a
   * poll from before the store's creation lists every bucket). {@code onAttempt} runs before each
   * attempt at reading the answer: after a retry, {@code sink} sees the buckets again from the
   * first. Returns how many buckets the answer listed.
   */
  long pollRotated(Instant since, Runnable onAttempt, Consumer<RotatedBucket> sink) {
    Objects.requireNonNull(since, "since");
    return caller.call(
        BucketJson.path(since),
        null,
        in -> {
          onAttempt.run();
          return BucketJson.read(in, sink);
        });
  }

  /** Sends one batch of values of one kind; one result per value. */
  MapAnswer send(IdentityInput kind, ValueList values) {
    return MapJson.call(caller, kind, values);
  }

  /**
   * Sends one batch for a {@link MappingCache}: over {@code POST /v3/identity/map} when the client
   * has a secret (previous ids and refresh times, no bucket ids), else as {@link #send}.
   */
  MapAnswer sendForCache(IdentityInput kind, ValueList values) {
    Optional<V2Envelopes> v2 = client.v2();
    return v2.isPresent()
        ? MapV3Json.call(caller, v2.get(), kind, values)
        : MapJson.call(caller, kind, values);
  }

  /**
   * {@code POST /v2/optout/status} of at most 5,000 advertising ids: for each, in order, when it
   * opted out (epoch ms), or -1. Needs the client's secret.
   */
  long[] optedOutSince(List<String> advertisingIds) {
    V2Envelopes v2 =
        client.v2().orElseThrow(() -> new IllegalStateException("opt-out status needs v2"));
    return OptOutStatusJson.call(caller, v2, advertisingIds);
  }

  /** Whether {@link #sendForCache} maps over v3 (the client has a secret). */
  boolean speaksV3() {
    return client.v2().isPresent();
  }

  /** Whether identifiers are hashed here before they are sent. */
  boolean hashesIdentifiers() {
    return client.hashIdentifiers();
  }

  /** What goes on the wire for {@code id}: itself, its hash, or null when it does not normalize. */
  Identifier toSend(Identifier id) {
    return id.isValid() ? toSendValid(id) : null;
  }

  /**
   * What goes on the wire for an identifier already known to be valid (the cache checks when it
   * adds): itself, or its hash; null if it no longer normalizes (only possible when hashing).
   */
  Identifier toSendValid(Identifier id) {
    if (!client.hashIdentifiers()) {
      return id;
    }
    try {
      return id.hashed();
    } catch (IllegalArgumentException invalid) {
      return null;
    }
  }

  /** Most identifiers per request. */
  int batchSize() {
    return client.batchSize();
  }

  /** Most bytes per request body. */
  int batchBytes() {
    return client.batchBytes();
  }

  static MapOutcome outcome(Identifier id, MapAnswer answer, int i) {
    return answer.isMapped(i)
        ? new MapOutcome.Mapped(id, answer.advertisingId(i), answer.bucketId(i))
        : new MapOutcome.Unmapped(id, MapOutcome.Reason.fromWire(answer.reason(i)));
  }

  /** Splits {@code indexes} into runs within the batch size and body size limits. */
  List<List<Integer>> batches(List<Integer> indexes, byte[][] values) {
    List<List<Integer>> batches = new ArrayList<>();
    List<Integer> current = new ArrayList<>();
    int bytes = MapJson.ENVELOPE_BYTES;
    for (int index : indexes) {
      int size = ValueList.jsonBytesBound(values[index], 0, values[index].length);
      if (!current.isEmpty() && (current.size() >= batchSize() || bytes + size > batchBytes())) {
        batches.add(current);
        current = new ArrayList<>();
        bytes = MapJson.ENVELOPE_BYTES;
      }
      current.add(index);
      bytes += size;
    }
    if (!current.isEmpty()) {
      batches.add(current);
    }
    return batches;
  }
}

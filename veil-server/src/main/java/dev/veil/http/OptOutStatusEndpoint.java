package dev.veil.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.veil.common.Deadline;
import dev.veil.common.StoreUnavailableException;
import dev.veil.common.VeilException;
import dev.veil.core.crypto.Sha256;
import dev.veil.identity.IdentityMapper;
import dev.veil.optout.OptOutService;
import dev.veil.optout.OptOutService.OptedOut;
import dev.veil.salt.SaltSnapshot;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * {@code POST /v2/optout/status} (docs/http-api.md): which of up to {@value #MAX_IDS} advertising
 * ids (raw UID2s, base64) belong to an identity that opted out, answered inside the v2 envelope as
 * {@code {"opted_out":[{"advertising_id":…,"opted_out_since":<epoch ms>}…]}}, in request order;
 * other ids are left out. {@link OptOutService#statusOf} decides; it may read the store, so it runs
 * on a worker thread under a {@link Deadline} of {@code db.timeout}, as {@link OptOutEndpoint}
 * does. Building the in-memory index (the first request, or the first after a rotation that the
 * node's catch-up has not rebuilt for yet) runs outside that deadline, so it completes even when
 * the answer itself is a 503.
 */
final class OptOutStatusEndpoint {
  static final int MAX_IDS = 5_000;
  private static final String FIELD = "advertising_ids";

  private final Vertx vertx;
  private final IdentityMapper mapper;
  private final OptOutService optOuts;
  private final JsonBodies bodies;
  private final Duration timeout;

  OptOutStatusEndpoint(
      Vertx vertx,
      IdentityMapper mapper,
      OptOutService optOuts,
      JsonBodies bodies,
      Duration timeout) {
    this.vertx = vertx;
    this.mapper = mapper;
    this.optOuts = optOuts;
    this.bodies = bodies;
    this.timeout = timeout;
  }

  void handle(Exchange ex, Buffer json) {
    List<String> ids = bodies.parse(json, OptOutStatusEndpoint::readIds);
    List<byte[]> raw = new ArrayList<>(ids.size());
    for (int i = 0; i < ids.size(); i++) {
      raw.add(decode(ids.get(i), i));
    }
    Deadline deadline = Deadline.after(timeout);
    long guard =
        vertx.setTimer(
            Math.max(1, deadline.remainingMillis()),
            fired -> {
              if (!ex.answered()) {
                ex.fail(
                    new StoreUnavailableException(
                        "opt-out status not read by the request's deadline (db.timeout "
                            + timeout.toMillis()
                            + " ms)",
                        null));
              }
            });
    vertx
        .executeBlocking(
            () -> {
              SaltSnapshot salts = mapper.snapshot();
              // Not under the deadline: a build cut short would start again on every request.
              optOuts.prepareStatus(salts);
              return deadline.run(() -> optOuts.statusOf(raw, salts));
            },
            false)
        .onComplete(
            done -> {
              vertx.cancelTimer(guard);
              if (ex.answered()) {
                return;
              }
              if (done.failed()) {
                ex.fail(done.cause());
                return;
              }
              List<OptedOut> found = done.result();
              ex.success(
                  out -> {
                    out.writeStartObject();
                    out.writeArrayFieldStart("opted_out");
                    for (OptedOut o : found) {
                      out.writeStartObject();
                      out.writeStringField("advertising_id", ids.get(o.position()));
                      out.writeNumberField("opted_out_since", o.since().toEpochMilli());
                      out.writeEndObject();
                    }
                    out.writeEndArray();
                    out.writeEndObject();
                  },
                  64 + found.size() * 96);
            });
  }

  private static List<String> readIds(JsonParser json) throws IOException {
    if (json.nextToken() != JsonToken.START_OBJECT) {
      throw VeilException.clientError("Request body must be a JSON object");
    }
    List<String> ids = null;
    while (json.nextToken() == JsonToken.FIELD_NAME) {
      String name = json.currentName();
      JsonToken value = json.nextToken();
      if (!FIELD.equals(name)) {
        json.skipChildren();
        continue;
      }
      if (value != JsonToken.START_ARRAY) {
        throw VeilException.clientError(FIELD + " must be an array of strings");
      }
      ids = new ArrayList<>();
      while (json.nextToken() != JsonToken.END_ARRAY) {
        if (json.currentToken() != JsonToken.VALUE_STRING) {
          throw VeilException.clientError(FIELD + " must be an array of strings");
        }
        if (ids.size() == MAX_IDS) {
          throw VeilException.clientError(
              "Too many advertising ids: at most " + MAX_IDS + " per request");
        }
        ids.add(json.getText());
      }
    }
    if (ids == null) {
      throw VeilException.clientError("Required parameter is missing: " + FIELD);
    }
    return ids;
  }

  private static byte[] decode(String id, int position) {
    byte[] raw;
    try {
      raw = Base64.getDecoder().decode(id);
    } catch (IllegalArgumentException e) {
      raw = null;
    }
    if (raw == null || raw.length != Sha256.BYTES) {
      throw VeilException.clientError(
          FIELD
              + "["
              + position
              + "] is not an advertising id: expected 32 bytes in standard base64");
    }
    return raw;
  }
}

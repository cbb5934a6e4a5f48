package dev.veil.console;

import dev.veil.client.AdminAction;
import java.util.function.Function;

/**
 * One line of the console's route table ({@link ConsoleRoutes}): a method and a path, the {@link
 * AdminAction} the request performs (so the role it needs), whether its store work is bounded by
 * {@code db.timeout}, and the handler. A path segment {@code {id}} matches a whole number.
 *
 * @param action the operation of a request; null for a page open to every signed-in operator
 * @param bounded false for the rotations, bulk work whose store calls are bounded one statement at
 *     a time instead (as on the admin gRPC API)
 */
record ConsoleRoute(
    String method,
    String pattern,
    Function<ConsoleRequest, AdminAction> action,
    boolean bounded,
    Handler handler) {

  /** Answers one request; may throw a refusal, which the dispatcher turns into a page. */
  @FunctionalInterface
  interface Handler {
    ConsoleResponse handle(ConsoleRequest request);
  }

  /** No match. */
  static final long NO_MATCH = -2;

  /** A match without an id. */
  static final long NO_ID = -1;

  static ConsoleRoute get(String pattern, AdminAction action, Handler handler) {
    return new ConsoleRoute("GET", pattern, r -> action, true, handler);
  }

  static ConsoleRoute post(String pattern, AdminAction action, Handler handler) {
    return new ConsoleRoute("POST", pattern, r -> action, true, handler);
  }

  /**
   * The id that {@code path} gives, {@link #NO_ID} when the pattern has none, or {@link #NO_MATCH}.
   */
  long match(String path) {
    String[] want = pattern.split("/", -1);
    String[] got = path.split("/", -1);
    if (want.length != got.length) {
      return NO_MATCH;
    }
    long id = NO_ID;
    for (int i = 0; i < want.length; i++) {
      if (want[i].equals("{id}")) {
        if (got[i].isEmpty()
            || got[i].length() > 12
            || !got[i].chars().allMatch(Character::isDigit)) {
          return NO_MATCH;
        }
        id = Long.parseLong(got[i]);
      } else if (!want[i].equals(got[i])) {
        return NO_MATCH;
      }
    }
    return id;
  }
}

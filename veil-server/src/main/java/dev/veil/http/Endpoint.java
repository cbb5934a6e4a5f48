package dev.veil.http;

/**
 * Answers requests of one route and method. Runs on the request's event loop and must not block; it
 * answers through the {@link Exchange}, now or later. An exception it throws is answered by {@link
 * ErrorResponses}.
 */
@FunctionalInterface
interface Endpoint {
  void handle(Exchange ex) throws Exception;

  /** An endpoint that reads named parameters, from the query (GET) or a JSON object body (POST). */
  @FunctionalInterface
  interface WithParams {
    void handle(Exchange ex, Params params) throws Exception;
  }
}

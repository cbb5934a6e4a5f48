/**
 * The encrypted bodies of UID2's v2 API ("v2 envelopes"): {@link dev.veil.core.envelope.V2Envelope}
 * seals and opens them, {@link dev.veil.core.envelope.ResponseSealer} seals a large answer piece by
 * piece, {@link dev.veil.core.envelope.EnvelopeSecret} is the client's key, {@link
 * dev.veil.core.envelope.OpenedEnvelope} what an envelope carries and {@link
 * dev.veil.core.envelope.EnvelopeException} why one was refused.
 *
 * <h2>The format</h2>
 *
 * <p>Each API client shares a 32-byte secret with the server. Every request body is encrypted with
 * it, and so is every answer of status 200; other answers are plain JSON. Encryption is AES-256-GCM
 * with a 12-byte IV, a 16-byte tag after the ciphertext and no additional authenticated data.
 *
 * <p>What gets encrypted is the same on both sides: the sender's clock as a signed 64-bit
 * big-endian count of milliseconds since the epoch, 8 nonce bytes, then the payload, a JSON
 * document in UTF-8 (possibly empty). The client picks a fresh random nonce for each request and
 * the server writes the request's nonce back into its answer, so that a client can tell that an
 * answer belongs to its request; the server writes its own clock as the timestamp.
 *
 * <pre>
 * request  = version (1 byte, value 1) | IV (12) | ciphertext (16 + payload) | tag (16)
 * response =                             IV (12) | ciphertext (16 + payload) | tag (16)
 * plaintext of both = timestamp (8, big-endian ms) | nonce (8) | payload
 * </pre>
 *
 * <p>A request is at least 45 bytes, an answer at least 44. On the wire the body is these bytes in
 * standard base64 with padding ({@link dev.veil.core.envelope.V2Envelope#BASE64}), or, with the
 * content type {@code application/octet-stream}, the bytes themselves ({@link
 * dev.veil.core.envelope.V2Envelope#BINARY}); choosing between them is the HTTP layer's business.
 * The base64 reading is the JDK's basic decoder, the one UID2's operator uses: it refuses any
 * character outside the alphabet, a line break or a trailing newline included.
 *
 * <h2>Checks, in order</h2>
 *
 * <p>A server refuses a request whose body is not base64, is shorter than 45 bytes, does not start
 * with version 1, fails the tag (another client's secret, or any altered byte), or whose timestamp
 * is too far from its clock; the allowed skew is the caller's choice, and {@link
 * dev.veil.core.envelope.V2Envelope#UID2_ALLOWED_SKEW} says what UID2's operator allows. A client
 * refuses an answer that is not base64, is too short, fails the tag or carries another nonce.
 *
 * <h2>Sources</h2>
 *
 * <p>The layouts are those of UID2's public documentation, "Encrypting requests and decrypting
 * responses". The order of the checks, the minimum length, the base64 decoder and the timestamp
 * window come from the request parser of UID2's open-source operator ({@code uid2-operator}); the
 * binary form and the client's nonce check from UID2's Java SDK ({@code uid2-client-java}). The
 * tests check this codec against that SDK and against a request envelope from the operator's own
 * tests.
 */
package dev.veil.core.envelope;

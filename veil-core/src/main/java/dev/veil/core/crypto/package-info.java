/**
 * Cryptographic primitives shared by the server and the clients, tuned for the token hot path.
 *
 * <ul>
 *   <li>{@link dev.veil.core.crypto.Sha256}: SHA-256 over one or two byte arrays.
 *   <li>{@link dev.veil.core.crypto.AesGcm}: AES-256-GCM (12-byte IV, 16-byte tag), optionally with
 *       additional authenticated data.
 *   <li>{@link dev.veil.core.crypto.NonceSource}: where IVs come from; injected so that tests can
 *       supply fixed IVs.
 * </ul>
 *
 * <p>The JDK's {@code MessageDigest} and {@code Cipher} objects are expensive to create and not
 * thread-safe, so each thread keeps its own instance in a {@link java.lang.ThreadLocal}. All
 * methods here are static and safe to call from any thread. Nothing in this package depends on
 * anything beyond the JDK.
 */
package dev.veil.core.crypto;

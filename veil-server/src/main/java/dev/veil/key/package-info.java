/**
 * Encryption keys: the immutable {@link dev.veil.key.KeyRing} snapshot that requests read, the
 * {@link dev.veil.key.KeyService} that creates and rotates keys, and the {@link
 * dev.veil.key.KeyStore} port that persists them.
 */
package dev.veil.key;

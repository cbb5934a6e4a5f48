/**
 * Salt buckets: the fixed {@link dev.veil.salt.SaltSystem} of a store, the immutable {@link
 * dev.veil.salt.SaltSnapshot} that requests read, and {@link dev.veil.salt.SaltService} which
 * rotates salts. See {@code SaltSnapshot} for the design note.
 */
package dev.veil.salt;

/**
 * Opt-outs: the durable {@link dev.veil.optout.OptOutStore}, the compact in-memory {@link
 * dev.veil.optout.OptOutIndex} checked on every request, and {@link dev.veil.optout.OptOutService}
 * tying them together.
 *
 * <p>{@link dev.veil.optout.OptOutService#statusOf} answers by advertising id ({@code POST
 * /v2/optout/status}). Records are keyed by first-level hash and an advertising id changes with its
 * bucket's salt, so a second table, {@code AdvertisingIdIndex}, holds one 64-bit tag per record
 * under the current salts (40 bits of the advertising id, 24 of the first-level hash): 8 bytes a
 * slot, 13.4 bytes per record at 10 million, built from the store by the first question and after
 * each rotation. A tag only names candidates; the store's records with that hash prefix are read
 * and their advertising ids compared in full, so nothing is reported falsely and the store is read
 * only for ids that (almost surely) opted out. docs/spec.md 4 gives the budget.
 */
package dev.veil.optout;

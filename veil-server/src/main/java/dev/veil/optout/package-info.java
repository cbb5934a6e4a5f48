/**
 * Opt-outs: the durable {@link dev.veil.optout.OptOutStore}, the compact in-memory {@link
 * dev.veil.optout.OptOutIndex} checked on every request, and {@link dev.veil.optout.OptOutService}
 * tying them together.
 */
package dev.veil.optout;

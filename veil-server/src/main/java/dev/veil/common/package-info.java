/**
 * Small types shared by every feature: versioned store values and the change feed nodes follow
 * ({@link dev.veil.common.ChangeFeed}, {@link dev.veil.common.ChangeCursor}), error codes, the job
 * lock, what makes a name blank ({@link dev.veil.common.BlankText}). No frameworks.
 */
package dev.veil.common;

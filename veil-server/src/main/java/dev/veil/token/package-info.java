/**
 * Tokens: {@link dev.veil.token.TokenService} issues, refreshes and validates token pairs; outcomes
 * are values ({@link dev.veil.token.GenerateOutcome}, {@link dev.veil.token.RefreshOutcome}). The
 * byte layouts live in {@code dev.veil.core.token}.
 */
package dev.veil.token;

/**
 * Sites and who may read whose tokens: each site's domain and app names, its participant types, and
 * the sharing permissions of its keyset ({@link dev.veil.site.Site}); the in-memory {@link
 * dev.veil.site.SiteDirectory} that requests read; {@link dev.veil.site.SiteService}, which writes
 * them through {@link dev.veil.site.SiteStore} and follows other nodes' writes; and {@link
 * dev.veil.site.KeyAccess}, the rule that decides which keys a caller of {@code /v1/key/latest},
 * {@code /v2/key/bidstream} or {@code /v2/key/sharing} receives (docs/spec.md 3.1).
 */
package dev.veil.site;

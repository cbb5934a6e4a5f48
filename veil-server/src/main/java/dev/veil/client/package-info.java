/**
 * API clients and roles: {@link dev.veil.client.ApiKey} format, the {@link
 * dev.veil.client.ClientRegistry} snapshot, constant-cost {@link
 * dev.veil.client.ApiKeyAuthenticator} and {@link dev.veil.client.ClientService} for
 * administration.
 */
package dev.veil.client;

/**
 * Typed configuration: {@link dev.veil.config.VeilConfig} and its {@link
 * dev.veil.config.ConfigLoader}.
 */
package dev.veil.config;

package dev.veil.config;

/** A setting is unknown, missing or invalid; the message names it. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}

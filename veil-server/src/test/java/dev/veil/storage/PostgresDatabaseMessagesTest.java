package dev.veil.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.UnknownHostException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** What a failed connection to PostgreSQL says: the innermost cause, in words. */
class PostgresDatabaseMessagesTest {
  @Test
  void theInnermostCause_isSaid_anUnknownHostAsSuch() {
    SQLException unknownHost =
        new SQLException(
            "The connection attempt failed.",
            new RuntimeException("wrapped", new UnknownHostException("db.example.invalid")));
    SQLException refused =
        new SQLException(
            "The connection attempt failed.", new java.net.ConnectException("Connection refused"));

    assertThat(PostgresDatabase.rootMessage(unknownHost))
        .isEqualTo("unknown host db.example.invalid");
    assertThat(PostgresDatabase.rootMessage(refused)).isEqualTo("Connection refused");
    assertThat(PostgresDatabase.rootMessage(new IllegalStateException()))
        .isEqualTo("IllegalStateException");
  }
}

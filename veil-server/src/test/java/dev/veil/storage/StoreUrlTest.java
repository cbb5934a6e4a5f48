package dev.veil.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class StoreUrlTest {

  @Test
  void emptyOrNull_isTheDefaultEmbeddedFile() {
    assertThat(StoreUrl.parse(null)).isEqualTo(new StoreUrl.Sqlite(Path.of("./data/veil.db")));
    assertThat(StoreUrl.parse("  ")).isEqualTo(new StoreUrl.Sqlite(Path.of("./data/veil.db")));
    assertThat(StoreUrl.parse("sqlite:")).isEqualTo(new StoreUrl.Sqlite(Path.of("./data/veil.db")));
  }

  @Test
  void embeddedForms_allNameAFile() {
    assertThat(StoreUrl.parse("/var/veil/v.db"))
        .isEqualTo(new StoreUrl.Sqlite(Path.of("/var/veil/v.db")));
    assertThat(StoreUrl.parse("data/v.db")).isEqualTo(new StoreUrl.Sqlite(Path.of("data/v.db")));
    assertThat(StoreUrl.parse("sqlite:data/v.db"))
        .isEqualTo(new StoreUrl.Sqlite(Path.of("data/v.db")));
    assertThat(StoreUrl.parse("sqlite:///var/v.db"))
        .isEqualTo(new StoreUrl.Sqlite(Path.of("/var/v.db")));
    assertThat(StoreUrl.parse("jdbc:sqlite:/var/v.db"))
        .isEqualTo(new StoreUrl.Sqlite(Path.of("/var/v.db")));
  }

  @Test
  void postgresUri_movesUserIntoTheUrlAndPasswordOutOfIt() {
    StoreUrl.Postgres pg =
        (StoreUrl.Postgres)
            StoreUrl.parse("postgresql://veil:s%40cret+x@db.example:5433/veil?sslmode=require");
    assertThat(pg.jdbcUrl())
        .isEqualTo("jdbc:postgresql://db.example:5433/veil?user=veil&sslmode=require");
    assertThat(pg.credentials().getProperty("password")).isEqualTo("s@cret+x");
    assertThat(pg.describe())
        .isEqualTo("postgresql://db.example:5433/veil?user=veil&sslmode=require");
  }

  @Test
  void postgresForms_withoutCredentials() {
    assertThat(((StoreUrl.Postgres) StoreUrl.parse("postgres://h/db")).jdbcUrl())
        .isEqualTo("jdbc:postgresql://h/db");
    assertThat(((StoreUrl.Postgres) StoreUrl.parse("postgresql://h1:5432,h2:5432/db")).jdbcUrl())
        .isEqualTo("jdbc:postgresql://h1:5432,h2:5432/db");
    StoreUrl.Postgres jdbc =
        (StoreUrl.Postgres)
            StoreUrl.parse("jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=s1");
    assertThat(jdbc.jdbcUrl())
        .isEqualTo("jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=s1");
    assertThat(jdbc.credentials()).isEmpty();
  }

  @Test
  void jdbcUrl_passwordParameter_isRemovedFromWhatIsShown() {
    StoreUrl.Postgres pg =
        (StoreUrl.Postgres) StoreUrl.parse("jdbc:postgresql://h/db?user=u&password=p%26w&ssl=true");
    assertThat(pg.jdbcUrl()).isEqualTo("jdbc:postgresql://h/db?user=u&ssl=true");
    assertThat(pg.credentials().getProperty("password")).isEqualTo("p&w");
    assertThat(pg.describe()).doesNotContain("p&w").doesNotContain("password");
  }

  @Test
  void unsupportedScheme_isRejectedWithoutEchoingTheUrl() {
    assertThatThrownBy(() -> StoreUrl.parse("mysql://root:hunter2@h/db"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mysql")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void malformedEscape_isRejectedWithoutEchoingThePassword() {
    assertThatThrownBy(() -> StoreUrl.parse("postgresql://u:pa%zzword@h/db"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("zz");
  }

  @Test
  void aPasswordHoldingAnAtSign_isTakenWhole() {
    StoreUrl.Postgres pg =
        (StoreUrl.Postgres) StoreUrl.parse("postgresql://veil:s3cr@tPW@db:5432/veil");

    assertThat(pg.credentials().getProperty("password")).isEqualTo("s3cr@tPW");
    assertThat(pg.describe()).isEqualTo("postgresql://db:5432/veil?user=veil");
  }

  @Test
  void aPasswordHoldingASlashOrQuestionMark_isRefusedWithoutEchoingIt() {
    for (String url :
        new String[] {
          "postgresql://veil:qx7/zk9PW@127.0.0.1:5432/veil",
          "jdbc:postgresql://veil:qx7?zk9PW@127.0.0.1/veil",
          "postgresql://veil:qx7/zk9PW@h1,h2/veil"
        }) {
      assertThatThrownBy(() -> StoreUrl.parse(url))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("percent-encode")
          .hasMessageNotContaining("qx7")
          .hasMessageNotContaining("zk9PW");
    }
  }

  @Test
  void hostLists_ofNamesAddressesAndPorts_areRead() {
    assertThat(
            ((StoreUrl.Postgres)
                    StoreUrl.parse("postgresql://u@[::1]:5432,db-2.example:6432,10.0.0.3/db"))
                .jdbcUrl())
        .isEqualTo("jdbc:postgresql://[::1]:5432,db-2.example:6432,10.0.0.3/db?user=u");
    assertThat(((StoreUrl.Postgres) StoreUrl.parse("postgresql:///db")).jdbcUrl())
        .isEqualTo("jdbc:postgresql://localhost/db");
  }

  @Test
  void anSslPassword_isACredentialToo_neverInWhatIsShown() {
    StoreUrl.Postgres pg =
        (StoreUrl.Postgres)
            StoreUrl.parse(
                "postgresql://postgres:pw1@127.0.0.1:5432/db?sslPassword=s3cretPW3&"
                    + "sslmode=disable");

    assertThat(pg.credentials().getProperty("sslpassword")).isEqualTo("s3cretPW3");
    assertThat(pg.credentials().getProperty("password")).isEqualTo("pw1");
    assertThat(pg.describe())
        .isEqualTo("postgresql://127.0.0.1:5432/db?user=postgres&sslmode=disable");
    assertThat(pg.jdbcUrl()).doesNotContain("s3cret").doesNotContain("pw1");
  }
}

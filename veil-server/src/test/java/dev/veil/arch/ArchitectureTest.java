package dev.veil.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Keeps frameworks at the edges: feature packages import no HTTP, gRPC, JSON or JDBC types. */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.veil");

  private static final String[] FEATURES = {
    "dev.veil.token..",
    "dev.veil.identity..",
    "dev.veil.salt..",
    "dev.veil.key..",
    "dev.veil.optout..",
    "dev.veil.client..",
    "dev.veil.site..",
    "dev.veil.common..",
    "dev.veil.core..",
    "dev.veil.deduction..",
    "dev.veil.webhook.."
  };

  @Test
  void featurePackages_doNotDependOnFrameworksOrAdapters() {
    noClasses()
        .that()
        .resideInAnyPackage(FEATURES)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.vertx..",
            "io.grpc..",
            "com.google.protobuf..",
            "com.fasterxml.jackson..",
            "java.sql..",
            "javax.sql..",
            "org.postgresql..",
            "org.sqlite..",
            "com.zaxxer..",
            "dev.veil.http..",
            "dev.veil.grpc..",
            "dev.veil.storage..",
            "dev.veil.server..")
        .check(MAIN);
  }

  /**
   * No two packages depend on each other, directly or through others: each can be read, and
   * changed, knowing only what it imports. Every package of core, server and the generated gRPC
   * code is a slice of its own. (The server does not depend on the client library: its pom has no
   * veil-client. The command line's packages are checked in veil-cli's CliArchitectureTest.)
   */
  @Test
  void packages_areFreeOfCycles() {
    slices().matching("dev.veil.(**)").should().beFreeOfCycles().check(MAIN);
  }

  @Test
  void storage_doesNotDependOnAdapters() {
    noClasses()
        .that()
        .resideInAPackage("dev.veil.storage..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.veil.http..", "dev.veil.grpc..")
        .check(MAIN);
  }
}

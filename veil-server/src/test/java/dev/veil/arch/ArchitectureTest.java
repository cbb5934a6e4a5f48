package dev.veil.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
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
            "dev.veil.cli..",
            "dev.veil.server..")
        .check(MAIN);
  }

  /**
   * No two packages depend on each other, directly or through others: each can be read, and
   * changed, knowing only what it imports. Every package of core, server and the generated gRPC
   * code is a slice of its own. The client library ({@code dev.veil.sdk} and its {@code internal}
   * packages) is one slice: its public package and its implementation packages share types both
   * ways today, and it must not form a cycle with anything else.
   */
  @Test
  void packages_areFreeOfCycles() {
    slices().assignedFrom(PACKAGES).should().beFreeOfCycles().check(MAIN);
  }

  private static final SliceAssignment PACKAGES =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
          String pkg = javaClass.getPackageName();
          if (!pkg.startsWith("dev.veil.")) {
            return SliceIdentifier.ignore();
          }
          return SliceIdentifier.of(
              pkg.startsWith("dev.veil.sdk") ? "dev.veil.sdk (client library)" : pkg);
        }

        @Override
        public String getDescription() {
          return "packages of dev.veil, the client library's counted as one";
        }
      };

  @Test
  void storage_doesNotDependOnAdapters() {
    noClasses()
        .that()
        .resideInAPackage("dev.veil.storage..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.veil.http..", "dev.veil.grpc..", "dev.veil.cli..")
        .check(MAIN);
  }
}

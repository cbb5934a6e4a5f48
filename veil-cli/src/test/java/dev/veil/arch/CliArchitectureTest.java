package dev.veil.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The command line's packages ({@code dev.veil.cli} and its {@code admin} and {@code map}, the demo
 * site {@code dev.veil.demo}) depend on each other one way only, and on the Java client through its
 * public API only: no class of theirs uses one of the client's {@code dev.veil.sdk.internal}
 * packages (veil-client's own ClientArchitectureTest keeps that API free of internal types). The
 * server's packages are checked by veil-server's ArchitectureTest; the server cannot depend on
 * these, its pom does not name this module.
 */
class CliArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.veil.cli", "dev.veil.demo");

  @Test
  void packages_areFreeOfCycles() {
    slices().matching("dev.veil.(**)").should().beFreeOfCycles().check(MAIN);
  }

  @Test
  void mainClasses_useTheClientsPublicApiOnly() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.veil.sdk.internal..")
        .because("the command line is a user of the client like any other (docs/architecture.md)")
        .check(MAIN);
  }
}

package dev.veil.sdk.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.members;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The client's {@code internal} packages are internal: no public member of a public type of the API
 * ({@code dev.veil.sdk}) names an internal type in its signature, so a program that uses the client
 * can reach them only by importing them, which veil-cli's architecture test forbids for the command
 * line. Internal classes may change in any release.
 */
class ClientArchitectureTest {
  private static final String INTERNAL = "dev.veil.sdk.internal";

  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.veil.sdk");

  @Test
  void publicApi_namesNoInternalType() {
    members()
        .that()
        .areDeclaredInClassesThat()
        .resideInAPackage("dev.veil.sdk")
        .and()
        .areDeclaredInClassesThat()
        .arePublic()
        .and()
        .arePublic()
        .should(nameNoInternalType())
        .check(MAIN);
  }

  private static ArchCondition<JavaMember> nameNoInternalType() {
    return new ArchCondition<>("name no type of " + INTERNAL + " in their signature") {
      @Override
      public void check(JavaMember member, ConditionEvents events) {
        for (JavaClass type : signatureTypes(member)) {
          if (type.getPackageName().startsWith(INTERNAL)) {
            events.add(
                SimpleConditionEvent.violated(
                    member, member.getFullName() + " names " + type.getName()));
          }
        }
      }
    };
  }

  private static List<JavaClass> signatureTypes(JavaMember member) {
    List<JavaType> types = new ArrayList<>();
    if (member instanceof JavaField field) {
      types.add(field.getType());
    } else if (member instanceof JavaCodeUnit code) {
      types.add(code.getReturnType());
      types.addAll(code.getParameterTypes());
      types.addAll(code.getThrowsClause().getTypes());
    }
    List<JavaClass> raw = new ArrayList<>();
    for (JavaType type : types) {
      raw.addAll(type.getAllInvolvedRawTypes());
    }
    return raw;
  }
}

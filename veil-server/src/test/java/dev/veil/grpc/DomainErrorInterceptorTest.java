package dev.veil.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.common.ErrorCode;
import dev.veil.common.StoreUnavailableException;
import dev.veil.common.VeilException;
import dev.veil.core.identity.IdentityInput;
import dev.veil.core.identity.InvalidIdentifierException;
import io.grpc.Status;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class DomainErrorInterceptorTest {
  @Test
  void clientError_isInvalidArgumentWithItsMessage() {
    Status status =
        DomainErrorInterceptor.statusOf(
            VeilException.clientError("name must be 1 to 128 characters"));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).isEqualTo("name must be 1 to 128 characters");
  }

  @Test
  void notFound_isNotFound() {
    assertThat(
            DomainErrorInterceptor.statusOf(
                    new VeilException(ErrorCode.NOT_FOUND, "no client with id 9"))
                .getCode())
        .isEqualTo(Status.Code.NOT_FOUND);
  }

  @ParameterizedTest
  @EnumSource(ErrorCode.class)
  void everyErrorCode_mapsToAFailureStatus(ErrorCode code) {
    Status status = DomainErrorInterceptor.statusOf(new VeilException(code, "m"));

    assertThat(status.isOk()).isFalse();
    assertThat(status.getCode()).isNotEqualTo(Status.Code.UNKNOWN);
  }

  @Test
  void storeUnavailable_isUnavailableWithoutTheStoresMessage() {
    Status status =
        DomainErrorInterceptor.statusOf(
            new StoreUnavailableException(
                "jdbc:postgresql://db:5432/veil refused", new SQLException("refused")));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).doesNotContain("postgresql");
  }

  @Test
  void invalidIdentifier_isInvalidArgumentNamingOnlyTheInputKind() {
    Status status =
        DomainErrorInterceptor.statusOf(new InvalidIdentifierException(IdentityInput.PHONE));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).isEqualTo("invalid phone");
  }

  @Test
  void anythingElse_isInternalWithoutItsMessage() {
    Status status = DomainErrorInterceptor.statusOf(new NullPointerException("secret detail"));

    assertThat(status.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(status.getDescription()).isEqualTo("internal error");
  }
}

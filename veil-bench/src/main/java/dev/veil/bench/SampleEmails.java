package dev.veil.bench;

/**
 * Deterministic, varied email addresses for benchmarks: mixed case, plain and {@code gmail.com}
 * addresses (whose dots and {@code +tags} normalization removes), 20 to 35 characters, so that a
 * benchmark does not measure one branch-predicted input over and over.
 */
final class SampleEmails {
  private static final String[] DOMAINS = {
    "example.com", "Gmail.com", "mail.example.org", "gmail.com"
  };

  private SampleEmails() {}

  /** {@code count} distinct addresses; the same on every call. */
  static String[] generate(int count) {
    String[] emails = new String[count];
    for (int i = 0; i < count; i++) {
      emails[i] = email(i);
    }
    return emails;
  }

  /**
   * {@code user0@example.com}, {@code user1@example.com}, …: the addresses of the map batches that
   * {@code bench/run.sh} posts, so a limit measured on them compares like with like.
   */
  static String[] batchLike(int count) {
    String[] emails = new String[count];
    for (int i = 0; i < count; i++) {
      emails[i] = "user" + i + "@example.com";
    }
    return emails;
  }

  /** The {@code i}-th address of the sequence. */
  static String email(int i) {
    String domain = DOMAINS[i % DOMAINS.length];
    String local =
        switch (i % 3) {
          case 0 -> "User.Name" + i;
          case 1 -> "first.last+news" + i;
          default -> "person_" + Integer.toHexString(i * 7919);
        };
    return local + "@" + domain;
  }
}

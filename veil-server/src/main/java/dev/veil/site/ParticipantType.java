package dev.veil.site;

import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What kind of participant a site is. A keyset's sharing permission may name types instead of
 * sites: every site of a named type may then decrypt its tokens, also sites that join later.
 */
public enum ParticipantType {
  PUBLISHER,
  ADVERTISER,
  DSP,
  DATA_PROVIDER;

  /**
   * The type named {@code name}, case-insensitively.
   *
   * @throws IllegalArgumentException naming the accepted values, if {@code name} is none of them
   */
  public static ParticipantType parse(String name) {
    String wanted = name.strip().toUpperCase(Locale.ROOT);
    for (ParticipantType type : values()) {
      if (type.name().equals(wanted)) {
        return type;
      }
    }
    throw new IllegalArgumentException(
        "unknown participant type '" + name.strip() + "': expected one of " + names());
  }

  /**
   * The types named in {@code names}, each case-insensitively.
   *
   * @throws IllegalArgumentException naming the first unknown name and the accepted values
   */
  public static Set<ParticipantType> parseAll(Collection<String> names) {
    Set<ParticipantType> types = EnumSet.noneOf(ParticipantType.class);
    for (String name : names) {
      types.add(parse(name));
    }
    return types;
  }

  /** The accepted names, comma-separated, in declaration order. */
  public static String names() {
    return Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", "));
  }
}

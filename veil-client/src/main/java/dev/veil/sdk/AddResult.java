package dev.veil.sdk;

/**
 * What {@link MappingCache#add} did with the identifiers it was given.
 *
 * @param added new entries, now waiting to be mapped
 * @param alreadyPresent identifiers the cache already held (or that appeared twice in the input)
 * @param invalid identifiers that do not normalize; not added, listed in {@link
 *     MappingCache#forEachRejection}
 */
public record AddResult(long added, long alreadyPresent, long invalid) {
  /** The sum of two results. */
  public AddResult plus(AddResult other) {
    return new AddResult(
        added + other.added, alreadyPresent + other.alreadyPresent, invalid + other.invalid);
  }
}

package dev.veil.sdk.internal.cache;

import dev.veil.core.identity.EmailNormalizer;
import dev.veil.core.identity.IdentityInput;
import dev.veil.core.text.ByteScan;
import dev.veil.sdk.Identifier;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;

/**
 * Identifiers as their kinds and UTF-8 values, the values one after the other in one array: what
 * the store adds, with no object per identifier. Behind {@link dev.veil.sdk.IdentifierBatch}. Not
 * thread-safe.
 */
public final class Values {
  private byte[] bytes;

  /** Value {@code i} is {@code bytes[starts[i] .. starts[i + 1])}. */
  private int[] starts;

  private IdentityInput[] kinds;

  /** Whether value {@code i} is ASCII only. */
  private boolean[] ascii;

  private int size;

  public Values(int expected) {
    int n = Math.max(expected, 16);
    bytes = new byte[n * 32];
    starts = new int[n + 1];
    kinds = new IdentityInput[n];
    ascii = new boolean[n];
  }

  /**
   * The values of identifiers that are all well-formed (valid ones are).
   *
   * @throws IllegalArgumentException if one holds an unpaired surrogate, or is too long (see {@link
   *     #add})
   */
  public static Values of(Collection<Identifier> identifiers) {
    Values values = new Values(identifiers.size());
    for (Identifier id : identifiers) {
      if (!values.add(id)) {
        throw new IllegalArgumentException(
            "identifier is not well-formed Unicode, or longer than "
                + MappingStore.MAX_VALUE_BYTES
                + " bytes");
      }
    }
    return values;
  }

  /**
   * Appends {@code identifier}, unless its value holds an unpaired surrogate (it has no UTF-8 form)
   * or is longer than {@link MappingStore#MAX_VALUE_BYTES} in UTF-8: no valid identifier is either,
   * so then it returns false and appends nothing.
   */
  public boolean add(Identifier identifier) {
    String value = identifier.value();
    boolean isAscii = true;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c >= 0x80) {
        isAscii = false;
        if (Character.isHighSurrogate(c)
            && i + 1 < value.length()
            && Character.isLowSurrogate(value.charAt(i + 1))) {
          i++;
        } else if (Character.isSurrogate(c)) {
          return false;
        }
      }
    }
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    if (utf8.length > MappingStore.MAX_VALUE_BYTES) {
      return false;
    }
    append(identifier.kind(), utf8, 0, utf8.length, isAscii);
    return true;
  }

  /**
   * Appends a value given as UTF-8 bytes.
   *
   * @throws IllegalArgumentException if they are not well-formed UTF-8, or longer than {@link
   *     MappingStore#MAX_VALUE_BYTES}
   */
  public void addUtf8(IdentityInput kind, byte[] utf8, int off, int len) {
    int start = room(len);
    boolean isAscii =
        ByteScan.copyAscii(utf8, off, len, bytes, start); // nearly always: checked while copied
    if (!isAscii) {
      try {
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(utf8, off, len));
      } catch (CharacterCodingException e) {
        throw new IllegalArgumentException(
            "identifier is not well-formed UTF-8", e); // its bytes are not counted
      }
    }
    commit(kind, len, isAscii);
  }

  private void append(IdentityInput kind, byte[] utf8, int off, int len, boolean isAscii) {
    System.arraycopy(utf8, off, bytes, room(len), len);
    commit(kind, len, isAscii);
  }

  /** Makes room for a value of {@code len} bytes; returns where it goes. */
  private int room(int len) {
    if (len > MappingStore.MAX_VALUE_BYTES) {
      throw new IllegalArgumentException(
          "identifier longer than " + MappingStore.MAX_VALUE_BYTES + " bytes");
    }
    if (size == kinds.length) {
      int n = size * 2;
      starts = Arrays.copyOf(starts, n + 1);
      kinds = Arrays.copyOf(kinds, n);
      ascii = Arrays.copyOf(ascii, n);
    }
    int start = starts[size];
    if (start + len > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, start + len));
    }
    return start;
  }

  /** Counts the value just copied to where {@link #room} said. */
  private void commit(IdentityInput kind, int len, boolean isAscii) {
    kinds[size] = kind;
    ascii[size] = isAscii;
    starts[size + 1] = starts[size] + len;
    size++;
  }

  public int size() {
    return size;
  }

  public void clear() {
    size = 0;
  }

  public IdentityInput kind(int i) {
    return kinds[check(i)];
  }

  public boolean isAscii(int i) {
    return ascii[check(i)];
  }

  /** The array holding value {@code i} from {@link #start}; read only. */
  public byte[] array() {
    return bytes;
  }

  public int start(int i) {
    return starts[check(i)];
  }

  public int length(int i) {
    return starts[check(i) + 1] - starts[i];
  }

  /**
   * {@link Identifier#isValid()} of value {@code i}; an ASCII email is checked on its bytes,
   * without an object.
   */
  public boolean isValid(int i) {
    if (kind(i) == IdentityInput.EMAIL && isAscii(i)) {
      return EmailNormalizer.isValidAscii(bytes, start(i), length(i));
    }
    return identifier(i).isValid();
  }

  /** Identifier {@code i}, its value decoded. */
  public Identifier identifier(int i) {
    return Identifier.of(kind(i), new String(bytes, start(i), length(i), StandardCharsets.UTF_8));
  }

  /** The values whose {@code keep} flag is set, in order. */
  public Values keep(boolean[] keep) {
    Values kept = new Values(size);
    for (int i = 0; i < size; i++) {
      if (keep[i]) {
        kept.append(kinds[i], bytes, starts[i], starts[i + 1] - starts[i], ascii[i]);
      }
    }
    return kept;
  }

  private int check(int i) {
    if (i < 0 || i >= size) {
      throw new IndexOutOfBoundsException(i);
    }
    return i;
  }
}

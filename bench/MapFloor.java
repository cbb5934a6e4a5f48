import java.io.EOFException;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.zip.CRC32C;

/**
 * The floor for the veil map benchmark: the least a Java 17 client can do to turn a file of emails
 * into a CSV of advertising ids through POST /v1/identity/map, and so the best ratio to the server
 * that any client of this JVM can reach on the machine, its start included.
 *
 * <p>It streams the file into JSON bodies (the first of 1,000 emails, doubling to 5,000, as veil
 * map sends them) on the main thread, posts them over 4 HTTP/1.1 connections (veil map's requests
 * in flight) from 4 threads, turns each answer's mapped entries into CSV rows
 * ({@code identifier,advertising_id,bucket_id}, as veil map writes them) on the thread that read it, and writes the rows in input
 * order from one more thread. It keeps no cache, checks no identifier, cannot resume and reports no
 * progress: everything veil map does beyond this is what veil map costs. It has no lambdas, and
 * bench/map.sh compiles it without invokedynamic string concatenation, so that the JVM's
 * method-handle machinery is not paid for before the first request.
 *
 * <p>With a fifth argument {@code cache} it is the floor of a client with a crash-safe cache
 * ({@link Cache}): the same run, plus what any such cache costs at least. Each new email is
 * checked for the shape of one, deduplicated through an in-memory index and recorded in an
 * append-only log (an {@code ADD} record, in the frame written before the request that carries it
 * leaves); each answer's mappings are recorded there too ({@code MAP} records: entry, time,
 * advertising id, bucket id), in frames of a length and a CRC-32C, forced to disk every quarter
 * second and at the end. The records are veil map's in size, about 100 bytes per email, but the
 * log is not veil map's format, and there is no resume, no rejected file and no progress: what
 * veil map does beyond this is what its own design costs, not what any crash-safe cache costs.
 *
 * <p>With a fifth argument {@code resume} it is the floor of a client whose output is its own
 * record of progress: the same run, each email checked for the shape of one, and every quarter
 * second (and at the end) the CSV written so far forced to disk and then a checkpoint appended to
 * {@code OUT.floor-resume} and forced (batches, rows and bytes written, in a frame with a CRC-32C):
 * what a run needs to resume after a crash by cutting the output back to its last checkpoint and
 * reading the input on from there. It keeps no copy of the emails or mappings besides the output,
 * and no index (so no deduplication).
 *
 * <p>Compile and run (bench/map.sh does both, with the launcher's JVM options for veil map and a
 * class-data archive of its own): {@code javac -XDstringConcat=inline -d DIR bench/MapFloor.java},
 * then {@code java -cp DIR MapFloor URL KEY IN OUT [cache|resume]}. Prints {@code rows=N}; exits 1
 * with a message if the server refuses a request, the connection fails or (with a cache) an answer
 * maps fewer emails than were sent. The cache goes to {@code OUT.floor-cache}.
 */
public final class MapFloor {
  private static final int CONNECTIONS = 4;
  private static final int FIRST_BATCH = 1000;
  private static final int LAST_BATCH = 5000;
  /** A batch with this sequence number tells a sender to stop. */
  private static final int END = -1;

  private MapFloor() {}

  /** One request body: its place in the input and the JSON bytes. */
  private record Batch(int seq, byte[] body, int length, int firstEntry, int count) {}

  /** The cache, or null without one. */
  private static Cache cache;
  /** Whether the output is checkpointed (the resume mode). */
  private static boolean resume;

  public static void main(String[] args) throws Exception {
    if (args.length != 4 && !(args.length == 5 && (args[4].equals("cache") || args[4].equals("resume")))) {
      System.err.println("usage: java -cp DIR MapFloor URL KEY IN OUT [cache|resume]");
      System.exit(2);
    }
    resume = args.length == 5 && args[4].equals("resume");
    if (args.length == 5 && !resume) {
      cache = new Cache(Path.of(args[3] + ".floor-cache"), Cache.estimateLines(args[2]));
      cache.startForcing();
    }
    URI url = URI.create(args[0]);
    byte[] head = ("POST /v1/identity/map HTTP/1.1\r\nHost: " + url.getHost() + ":" + url.getPort()
        + "\r\nAuthorization: Bearer " + args[1] + "\r\nContent-Type: application/json\r\nContent-Length: ")
        .getBytes(StandardCharsets.US_ASCII);
    BlockingQueue<Batch> batches = new ArrayBlockingQueue<>(16);
    Output output = new Output(args[3]);
    Sender[] senders = new Sender[CONNECTIONS];
    for (int i = 0; i < CONNECTIONS; i++) {
      senders[i] = new Sender(url.getHost(), url.getPort(), head, batches, output);
      senders[i].start();
    }
    output.start();
    int count = readBatches(args[2], batches);
    output.finishAt(count);
    for (int i = 0; i < CONNECTIONS; i++) {
      batches.put(new Batch(END, null, 0, 0, 0));
    }
    output.join();
    if (cache != null) {
      cache.finish();
    }
    System.out.println("rows=" + output.rows);
  }

  /** Any failure ends the run at once: the main thread may be waiting to queue a batch. */
  static void fail(Exception e) {
    System.err.println("MapFloor: " + e);
    System.exit(1);
  }

  /** Reads the file's lines into bodies and queues them; returns how many bodies there were. */
  private static int readBatches(String file, BlockingQueue<Batch> batches) throws IOException, InterruptedException {
    Reading reading = new Reading(batches);
    try (InputStream in = new FileInputStream(file)) {
      byte[] chunk = new byte[1 << 16];
      int have = 0;
      boolean end = false;
      while (!end) {
        int n = in.read(chunk, have, chunk.length - have);
        if (n < 0) {
          end = true;
          if (have > 0) {
            chunk[have++] = '\n'; // a last line without its newline (the chunk always has room)
          }
        } else {
          have += n;
        }
        int lineStart = reading.lines(chunk, have);
        System.arraycopy(chunk, lineStart, chunk, 0, have - lineStart);
        have -= lineStart;
        if (have == chunk.length) {
          throw new IOException("a line longer than " + chunk.length + " bytes");
        }
      }
    }
    return reading.finish();
  }

  /** Turns lines into bodies (through the cache, when there is one) and queues them. */
  private static final class Reading {
    private final BlockingQueue<Batch> batches;
    private int seq;
    private int size = FIRST_BATCH;
    private Body body = new Body();
    private final int[] starts = new int[1 << 15];
    private final int[] ends = new int[1 << 15];
    private final long[] hashes = new long[1 << 15];

    Reading(BlockingQueue<Batch> batches) {
      this.batches = batches;
    }

    /** Takes the whole lines of {@code chunk[0, have)}; returns where the unfinished last one starts. */
    int lines(byte[] chunk, int have) throws IOException, InterruptedException {
      int lineStart = 0;
      int count = 0;
      for (int i = 0; i < have; i++) {
        if (chunk[i] != '\n') {
          continue;
        }
        int lineEnd = i > lineStart && chunk[i - 1] == '\r' ? i - 1 : i;
        if (lineEnd > lineStart && ((cache == null && !resume) || Cache.looksLikeAnEmail(chunk, lineStart, lineEnd))) {
          starts[count] = lineStart;
          ends[count] = lineEnd;
          if (cache != null) {
            hashes[count] = Cache.hash(chunk, lineStart, lineEnd);
          }
          count++;
        }
        lineStart = i + 1;
      }
      if (cache != null) {
        cache.prefetch(hashes, count);
      }
      for (int k = 0; k < count; k++) {
        int entry = cache == null ? -1 : cache.add(chunk, starts[k], ends[k], hashes[k]);
        if (cache != null && entry < 0) {
          continue; // held already
        }
        if (body.count == 0) {
          body.firstEntry = entry;
        }
        body.add(chunk, starts[k], ends[k]);
        if (body.count == size) {
          queue();
          size = Math.min(LAST_BATCH, size * 2);
        }
      }
      return lineStart;
    }

    /** Queues the last body; returns how many there were. */
    int finish() throws IOException, InterruptedException {
      if (body.count > 0) {
        queue();
      }
      return seq;
    }

    private void queue() throws IOException, InterruptedException {
      if (cache != null) {
        cache.writeAdds(); // the entries' records go before any answer that names them
      }
      batches.put(body.finish(seq++));
      body = new Body();
    }
  }

  /** A JSON body {"email":["…",…]} being built. */
  private static final class Body {
    private byte[] bytes = new byte[1 << 18];
    private int length;
    int count;
    int firstEntry;

    void add(byte[] line, int from, int to) {
      if (length + 6 * (to - from) + 16 > bytes.length) {
        bytes = java.util.Arrays.copyOf(bytes, Math.max(2 * bytes.length, length + 6 * (to - from) + 16));
      }
      if (count == 0) {
        length = put("{\"email\":[\"", 0);
      } else {
        bytes[length++] = ',';
        bytes[length++] = '"';
      }
      for (int i = from; i < to; i++) {
        byte b = line[i];
        if (b == '"' || b == '\\') {
          bytes[length++] = '\\';
          bytes[length++] = b;
        } else if (b >= 0 && b < 0x20) {
          length = put(String.format("\\u%04x", b), length);
        } else {
          bytes[length++] = b;
        }
      }
      bytes[length++] = '"';
      count++;
    }

    Batch finish(int seq) {
      length = put("]}", length);
      return new Batch(seq, bytes, length, firstEntry, count);
    }

    private int put(String ascii, int at) {
      for (int i = 0; i < ascii.length(); i++) {
        bytes[at++] = (byte) ascii.charAt(i);
      }
      return at;
    }
  }

  /** Posts batches over one connection and hands each answer's CSV rows to the output. */
  private static final class Sender extends Thread {
    private final String host;
    private final int port;
    private final byte[] head;
    private final BlockingQueue<Batch> batches;
    private final Output output;
    private byte[] answer = new byte[1 << 20];
    private int answerEnd;
    /** This sender's frame of MAP records, reused. */
    private final Frame mapFrame = new Frame(1 << 20);

    Sender(String host, int port, byte[] head, BlockingQueue<Batch> batches, Output output) {
      super("floor-sender");
      setDaemon(true);
      this.host = host;
      this.port = port;
      this.head = head;
      this.batches = batches;
      this.output = output;
    }

    @Override
    public void run() {
      try (Socket socket = new Socket(host, port)) {
        socket.setTcpNoDelay(true);
        OutputStream out = socket.getOutputStream();
        InputStream in = socket.getInputStream();
        for (Batch batch = batches.take(); batch.seq() != END; batch = batches.take()) {
          // Head and body in one write: with TCP_NODELAY, two writes would be two segments.
          byte[] length = (batch.length() + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
          byte[] request = new byte[head.length + length.length + batch.length()];
          System.arraycopy(head, 0, request, 0, head.length);
          System.arraycopy(length, 0, request, head.length, length.length);
          System.arraycopy(batch.body(), 0, request, head.length + length.length, batch.length());
          out.write(request);
          int bodyStart = readAnswer(in);
          Frame maps = cache == null ? null : mapFrame.start();
          Rows rows = Rows.of(answer, bodyStart, answerEnd, maps, batch.firstEntry(), System.currentTimeMillis());
          if (cache != null) {
            cache.writeMaps(batch, rows.count(), mapFrame);
          }
          output.put(batch.seq(), rows);
        }
      } catch (IOException | RuntimeException e) {
        fail(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** Reads one answer into {@link #answer}; returns where its body starts (it ends at answerEnd). */
    private int readAnswer(InputStream in) throws IOException {
      int have = 0;
      int headEnd = -1;
      while (headEnd < 0) {
        int n = in.read(answer, have, answer.length - have);
        if (n < 0) {
          throw new EOFException("the server closed the connection");
        }
        for (int i = Math.max(3, have); i < have + n && headEnd < 0; i++) {
          if (answer[i] == '\n' && answer[i - 1] == '\r' && answer[i - 2] == '\n') {
            headEnd = i + 1;
          }
        }
        have += n;
      }
      String headers = new String(answer, 0, headEnd, StandardCharsets.ISO_8859_1);
      if (!headers.startsWith("HTTP/1.1 200")) {
        throw new IOException("the server answered " + headers.substring(0, headers.indexOf('\r')));
      }
      int at = headers.toLowerCase(java.util.Locale.ROOT).indexOf("\ncontent-length:");
      if (at < 0) {
        throw new IOException("an answer without Content-Length");
      }
      int length = Integer.parseInt(headers.substring(at + 16, headers.indexOf('\r', at)).trim());
      answerEnd = headEnd + length;
      if (answerEnd > answer.length) {
        answer = java.util.Arrays.copyOf(answer, answerEnd);
      }
      while (have < answerEnd) {
        int n = in.read(answer, have, answerEnd - have);
        if (n < 0) {
          throw new EOFException("the server closed the connection");
        }
        have += n;
      }
      return headEnd;
    }
  }

  /** CSV rows from an answer's mapped entries, in their order, and how many. */
  private record Rows(byte[] csv, int count) {
    private static final byte[] IDENTIFIER = "\"identifier\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ADVERTISING_ID = "\"advertising_id\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BUCKET_ID = "\"bucket_id\":\"".getBytes(StandardCharsets.US_ASCII);

    /** The rows; with {@code maps}, also a MAP record per row (entries from {@code firstEntry} on). */
    static Rows of(byte[] json, int from, int to, Frame maps, int firstEntry, long now) {
      byte[] rows = new byte[to - from];
      int length = 0;
      int count = 0;
      int at = from;
      // Mapped entries come first, each {"identifier":"…","advertising_id":"…","bucket_id":"…"};
      // the first entry without an advertising id is an unmapped one, and the rows end there.
      while ((at = find(json, at, to, IDENTIFIER)) >= 0) {
        int idEnd = valueEnd(json, at);
        if (!startsWith(json, idEnd + 2, to, ADVERTISING_ID)) {
          break;
        }
        length = copy(json, at, idEnd, rows, length, ',');
        at = idEnd + 2 + ADVERTISING_ID.length;
        int adEnd = valueEnd(json, at);
        length = copy(json, at, adEnd, rows, length, ',');
        at = find(json, adEnd, to, BUCKET_ID);
        if (at < 0) {
          throw new IllegalStateException("a mapped entry without bucket_id");
        }
        int bucketEnd = valueEnd(json, at);
        length = copy(json, at, bucketEnd, rows, length, '\n');
        if (maps != null) {
          int adStart = idEnd + 2 + ADVERTISING_ID.length;
          maps.map(firstEntry + count, now, json, adStart, adEnd, at, bucketEnd);
        }
        at = bucketEnd;
        count++;
      }
      return new Rows(java.util.Arrays.copyOf(rows, length), count);
    }

    /** Where the JSON string value starting at {@code at} ends (its closing quote); escapes skipped. */
    private static int valueEnd(byte[] json, int at) {
      int end = at;
      while (json[end] != '"') {
        end += json[end] == '\\' ? 2 : 1;
      }
      return end;
    }

    /** Copies [from, end) and a separator (the value as it is, escapes kept). */
    private static int copy(byte[] json, int from, int end, byte[] rows, int length, char separator) {
      System.arraycopy(json, from, rows, length, end - from);
      length += end - from;
      rows[length++] = (byte) separator;
      return length;
    }

    private static boolean startsWith(byte[] json, int at, int to, byte[] key) {
      return at + key.length <= to && find(json, at, at + key.length, key) == at + key.length;
    }

    /** The position just after the first occurrence of {@code key} in [from, to), or -1. */
    private static int find(byte[] json, int from, int to, byte[] key) {
      outer:
      for (int i = from; i <= to - key.length; i++) {
        if (json[i] != key[0]) {
          continue;
        }
        for (int j = 1; j < key.length; j++) {
          if (json[i + j] != key[j]) {
            continue outer;
          }
        }
        return i + key.length;
      }
      return -1;
    }
  }

  /**
   * The least a crash-safe cache costs (see the class comment): an in-memory index of the emails'
   * 64-bit hashes, sized once from the file, the log, and a thread that forces it. Two emails with
   * the same 64-bit hash count as one (about one chance in 30 million for a million emails): a
   * cache must confirm such a match against the email it holds, which this floor leaves out. The
   * reading thread adds; each sender appends its answer's records; appends are serialized.
   */
  private static final class Cache {
    private static final long FORCE_EVERY_MS = 250;
    private final FileChannel log;
    private final CRC32C crc = new CRC32C();
    private long end;
    private long[] slots;
    private int mask;
    private int used;
    private int entries;
    private final Frame adds = new Frame(1 << 20);
    private final Thread forcer;
    /** What the forcing thread waits on between forces. */
    private final Object forcing = new Object();
    private volatile boolean finished;
    private long sink;

    /** @param expected about how many emails will be added (the index is sized for them) */
    Cache(Path file, long expected) throws IOException {
      int capacity = Integer.highestOneBit((int) Math.min(1 << 28, Math.max(1024, 2 * expected)) - 1) << 1;
      slots = new long[capacity];
      mask = capacity - 1;
      log = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
          StandardOpenOption.WRITE);
      adds.start();
      // Not interrupted to stop (an interrupt closes a FileChannel in the middle of a force): it
      // waits on its own lock, which finish() notifies.
      forcer = new Thread("floor-force") {
        @Override
        public void run() {
          try {
            while (waitToForce()) {
              log.force(false);
            }
          } catch (IOException e) {
            fail(e);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      };
      forcer.setDaemon(true);
    }

    /** About how many lines {@code file} has: its size over the mean length of its first 64 KiB's lines. */
    static long estimateLines(String file) throws IOException {
      try (InputStream in = new FileInputStream(file)) {
        byte[] sample = new byte[1 << 16];
        int n = in.readNBytes(sample, 0, sample.length);
        int lines = 0;
        for (int i = 0; i < n; i++) {
          if (sample[i] == '\n') {
            lines++;
          }
        }
        long size = new java.io.File(file).length();
        return lines == 0 ? 1 : size * lines / n + 1;
      }
    }

    void startForcing() {
      forcer.start();
    }

    /** An ASCII line with one @ inside and no space, quote, comma or control character. */
    static boolean looksLikeAnEmail(byte[] b, int from, int to) {
      int at = -1;
      for (int i = from; i < to; i++) {
        byte c = b[i];
        if (c == '@') {
          if (at >= 0) {
            return false;
          }
          at = i;
        } else if (c <= ' ' || c == '"' || c == ',' || c == '\\') { // negative (non-ASCII) included
          return false;
        }
      }
      return at > from && at < to - 1;
    }

    static long hash(byte[] b, int from, int to) {
      long h = 0x9E3779B97F4A7C15L;
      for (int i = from; i < to; i++) {
        h = (h ^ b[i]) * 0x100000001B3L;
      }
      return h ^ (h >>> 31);
    }

    /** Reads the index slots of these hashes ahead, so that the adds find them in the CPU's cache. */
    void prefetch(long[] hashes, int count) {
      long s = 0;
      for (int i = 0; i < count; i++) {
        s += slots[(int) (hashes[i] >>> 32) & mask];
      }
      sink += s;
    }

    /** The new entry for the email {@code b[from, to)} (its ADD record buffered), or -1 if held. */
    int add(byte[] b, int from, int to, long hash) {
      long h = hash == 0 ? 1 : hash; // 0 marks a free slot
      int i = (int) (h >>> 32) & mask;
      for (long slot = slots[i]; slot != 0; slot = slots[i = (i + 1) & mask]) {
        if (slot == h) {
          return -1;
        }
      }
      slots[i] = h;
      if (++used > slots.length / 2) {
        grow();
      }
      adds.add(b, from, to);
      return entries++;
    }

    private void grow() {
      long[] old = slots;
      slots = new long[old.length * 2];
      mask = slots.length - 1;
      for (long slot : old) {
        if (slot != 0) {
          int i = (int) (slot >>> 32) & mask;
          while (slots[i] != 0) {
            i = (i + 1) & mask;
          }
          slots[i] = slot;
        }
      }
    }

    /** Appends the buffered ADD records as one frame. */
    void writeAdds() throws IOException {
      if (!adds.isEmpty()) {
        append(adds);
      }
      adds.start();
    }

    /** Appends an answer's MAP records; every email sent must have been mapped. */
    void writeMaps(Batch batch, int mapped, Frame maps) throws IOException {
      if (mapped != batch.count()) {
        throw new IOException("an answer mapped " + mapped + " of " + batch.count() + " emails (the floor's cache "
            + "takes only fully mapped answers)");
      }
      append(maps);
    }

    private synchronized void append(Frame f) throws IOException {
      byte[] b = f.bytes;
      int payload = f.length - Frame.HEAD;
      crc.reset();
      crc.update(b, Frame.HEAD, payload);
      putInt(b, 0, payload);
      putInt(b, 4, (int) crc.getValue());
      ByteBuffer buffer = ByteBuffer.wrap(b, 0, f.length);
      while (buffer.hasRemaining()) {
        end += log.write(buffer, end);
      }
    }

    private static void putInt(byte[] b, int at, int v) {
      b[at] = (byte) (v >>> 24);
      b[at + 1] = (byte) (v >>> 16);
      b[at + 2] = (byte) (v >>> 8);
      b[at + 3] = (byte) v;
    }

    /** Waits a quarter second, or until finish(); whether to force now (false once finished). */
    private boolean waitToForce() throws InterruptedException {
      synchronized (forcing) {
        if (!finished) {
          forcing.wait(FORCE_EVERY_MS);
        }
        return !finished;
      }
    }

    /** Stops the forcing thread and forces what is left. */
    void finish() throws IOException, InterruptedException {
      synchronized (forcing) {
        finished = true;
        forcing.notifyAll();
      }
      forcer.join();
      log.force(false);
      log.close();
    }
  }

  /** A frame being built: length and CRC (filled in when appended), then records. */
  private static final class Frame {
    static final int HEAD = 8;
    byte[] bytes;
    int length;

    Frame(int capacity) {
      bytes = new byte[capacity];
    }

    Frame start() {
      length = HEAD;
      return this;
    }

    boolean isEmpty() {
      return length == HEAD;
    }

    /** An ADD record: type 1, kind 1 (email), the email's length and bytes. */
    void add(byte[] b, int from, int to) {
      room(to - from + 8);
      bytes[length++] = 1;
      bytes[length++] = 1;
      varint(to - from);
      System.arraycopy(b, from, bytes, length, to - from);
      length += to - from;
    }

    /** A MAP record: type 2, the entry, the time, the advertising and bucket ids. */
    void map(int entry, long now, byte[] json, int adFrom, int adTo, int bucketFrom, int bucketTo) {
      room(adTo - adFrom + bucketTo - bucketFrom + 24);
      bytes[length++] = 2;
      varint(entry);
      for (int k = 56; k >= 0; k -= 8) {
        bytes[length++] = (byte) (now >>> k);
      }
      varint(adTo - adFrom);
      System.arraycopy(json, adFrom, bytes, length, adTo - adFrom);
      length += adTo - adFrom;
      varint(bucketTo - bucketFrom);
      System.arraycopy(json, bucketFrom, bytes, length, bucketTo - bucketFrom);
      length += bucketTo - bucketFrom;
    }

    private void varint(int v) {
      while ((v & ~0x7F) != 0) {
        bytes[length++] = (byte) ((v & 0x7F) | 0x80);
        v >>>= 7;
      }
      bytes[length++] = (byte) v;
    }

    private void room(int more) {
      if (length + more > bytes.length) {
        bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
      }
    }
  }

  /** Writes each batch's rows in input order, as they arrive. */
  private static final class Output extends Thread {
    private final String file;
    private Rows[] done = new Rows[64];
    private int total = -1;
    long rows;

    Output(String file) {
      super("floor-output");
      this.file = file;
    }

    synchronized void put(int seq, Rows rows) {
      while (seq >= done.length) {
        done = java.util.Arrays.copyOf(done, 2 * done.length);
      }
      done[seq] = rows;
      notifyAll();
    }

    synchronized void finishAt(int count) {
      total = count;
      notifyAll();
    }

    @Override
    public void run() {
      try (FileOutputStream out = new FileOutputStream(file);
          FileChannel checkpoints = resume ? FileChannel.open(Path.of(file + ".floor-resume"), StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE) : null) {
        byte[] header = "identifier,advertising_id,bucket_id\n".getBytes(StandardCharsets.US_ASCII);
        out.write(header);
        long bytes = header.length;
        long lastCheckpoint = System.nanoTime();
        CRC32C crc = new CRC32C();
        ByteBuffer record = ByteBuffer.allocate(32);
        for (int seq = 0; ; seq++) {
          Rows next = next(seq);
          if (next == null) {
            if (resume) {
              checkpoint(out, checkpoints, record, crc, seq, bytes);
            }
            return;
          }
          out.write(next.csv());
          bytes += next.csv().length;
          rows += next.count();
          if (resume && System.nanoTime() - lastCheckpoint >= 250_000_000L) {
            checkpoint(out, checkpoints, record, crc, seq + 1, bytes);
            lastCheckpoint = System.nanoTime();
          }
        }
      } catch (IOException e) {
        fail(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** Forces the rows written, then records how far they go (batches, rows, bytes) and forces that. */
    private void checkpoint(FileOutputStream out, FileChannel checkpoints, ByteBuffer record, CRC32C crc, int batches,
        long bytes) throws IOException {
      out.getChannel().force(false);
      record.clear();
      record.putInt(0).putInt(batches).putLong(rows).putLong(bytes);
      crc.reset();
      crc.update(record.array(), 4, 20);
      record.putInt(0, (int) crc.getValue());
      record.flip();
      while (record.hasRemaining()) {
        checkpoints.write(record);
      }
      checkpoints.force(false);
    }

    /** The rows of batch {@code seq} once they are there, or null after the last batch. */
    private synchronized Rows next(int seq) throws InterruptedException {
      while ((total < 0 || seq < total) && (seq >= done.length || done[seq] == null)) {
        wait();
      }
      if (seq == total) {
        return null;
      }
      Rows rows = done[seq];
      done[seq] = null;
      return rows;
    }
  }
}

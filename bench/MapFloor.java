import java.io.EOFException;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

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
 * <p>Compile and run (bench/map.sh does both, with the launcher's JVM options for veil map and a
 * class-data archive of its own): {@code javac -XDstringConcat=inline -d DIR bench/MapFloor.java},
 * then {@code java -cp DIR MapFloor URL KEY IN OUT}. Prints {@code rows=N}; exits 1 with a message
 * if the server refuses a request or the connection fails.
 */
public final class MapFloor {
  private static final int CONNECTIONS = 4;
  private static final int FIRST_BATCH = 1000;
  private static final int LAST_BATCH = 5000;
  /** A batch with this sequence number tells a sender to stop. */
  private static final int END = -1;

  private MapFloor() {}

  /** One request body: its place in the input and the JSON bytes. */
  private record Batch(int seq, byte[] body, int length) {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: java -cp DIR MapFloor URL KEY IN OUT");
      System.exit(2);
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
      batches.put(new Batch(END, null, 0));
    }
    output.join();
    System.out.println("rows=" + output.rows);
  }

  /** Any failure ends the run at once: the main thread may be waiting to queue a batch. */
  static void fail(Exception e) {
    System.err.println("MapFloor: " + e);
    System.exit(1);
  }

  /** Reads the file's lines into bodies and queues them; returns how many bodies there were. */
  private static int readBatches(String file, BlockingQueue<Batch> batches) throws IOException, InterruptedException {
    int seq = 0;
    int size = FIRST_BATCH;
    Body body = new Body();
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
        int lineStart = 0;
        for (int i = 0; i < have; i++) {
          if (chunk[i] != '\n') {
            continue;
          }
          int lineEnd = i > lineStart && chunk[i - 1] == '\r' ? i - 1 : i;
          if (lineEnd > lineStart) {
            body.add(chunk, lineStart, lineEnd);
            if (body.count == size) {
              batches.put(body.finish(seq++));
              body = new Body();
              size = Math.min(LAST_BATCH, size * 2);
            }
          }
          lineStart = i + 1;
        }
        System.arraycopy(chunk, lineStart, chunk, 0, have - lineStart);
        have -= lineStart;
        if (have == chunk.length) {
          throw new IOException("a line longer than " + chunk.length + " bytes");
        }
      }
    }
    if (body.count > 0) {
      batches.put(body.finish(seq++));
    }
    return seq;
  }

  /** A JSON body {"email":["…",…]} being built. */
  private static final class Body {
    private byte[] bytes = new byte[1 << 18];
    private int length;
    int count;

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
      return new Batch(seq, bytes, length);
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
          output.put(batch.seq(), Rows.of(answer, bodyStart, answerEnd));
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

    static Rows of(byte[] json, int from, int to) {
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
      try (OutputStream out = new FileOutputStream(file)) {
        out.write("identifier,advertising_id,bucket_id\n".getBytes(StandardCharsets.US_ASCII));
        for (int seq = 0; ; seq++) {
          Rows next = next(seq);
          if (next == null) {
            return;
          }
          out.write(next.csv());
          rows += next.count();
        }
      } catch (IOException e) {
        fail(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
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

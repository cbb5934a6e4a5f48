/**
 * How fast this core is right now: nanoseconds per byte of a plain byte-search loop over 1 MiB,
 * best of five passes. On a shared virtual machine the figure moves (by 2x within minutes on the
 * machine of docs/benchmarks-client.md), so bench/map.sh prints it for each core in each round.
 * JDK only; run pinned: taskset -c N java bench/CpuSpeed.java
 */
public class CpuSpeed {
  public static void main(String[] args) {
    byte[] buf = new byte[1 << 20];
    java.util.Random random = new java.util.Random(1);
    for (int i = 0; i < buf.length; i++) {
      buf[i] = (byte) ('a' + random.nextInt(26));
    }
    for (int i = 40; i < buf.length; i += 41) {
      buf[i] = '"';
    }
    double best = Double.MAX_VALUE;
    long sink = 0;
    for (int pass = 0; pass < 5; pass++) {
      long start = System.nanoTime();
      for (int rep = 0; rep < 10; rep++) {
        for (int p = 0; p + 41 <= buf.length; p += 41) {
          sink += find(buf, p, p + 41);
        }
      }
      best = Math.min(best, (System.nanoTime() - start) / (10.0 * buf.length));
    }
    System.out.printf("%.2f%n", sink == 0 ? -1 : best);
  }

  private static int find(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] == '"' || b[i] == '\\') {
        return i;
      }
    }
    return -1;
  }
}

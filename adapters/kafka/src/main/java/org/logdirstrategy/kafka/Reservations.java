package org.logdirstrategy.kafka;

import java.io.File;
import java.util.ArrayDeque;
import java.util.Iterator;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * Bytes held on a log dir for partitions placed but not written yet, as lds-host keeps them: each
 * new log placed by a strategy reserves its expected size, less what it has written since. A
 * reservation ends once the log has written that much, or once it left the dir it was placed in
 * (deleted, renamed for deletion or moved). Called under Kafka's log creation lock.
 *
 * <p>Finding what each log has written costs one size() per open reservation, so the per-dir
 * sums are recomputed at most every REFRESH_NANOS: a burst of placements (a topic of 10,000
 * partitions) adds each new reservation to the sums it reads instead of walking the list again.
 */
final class Reservations {
  /** Past this many open reservations the oldest is dropped: memory stays bounded. */
  static final int MAX_OPEN = 100_000;

  private static final class Held {
    final UnifiedLog log;
    final String dirPath;
    final File logDir;
    final long bytes;

    Held(UnifiedLog log, long bytes) {
      this.log = log;
      this.dirPath = log.parentDir();
      this.logDir = log.dir();
      this.bytes = bytes;
    }
  }

  static final long REFRESH_NANOS = 1_000_000_000L;

  private final ArrayDeque<Held> open = new ArrayDeque<>();
  private String[] sumPaths = new String[0];
  private long[] sums = new long[0];
  private long summedAt;
  private boolean summed;

  synchronized void add(UnifiedLog log, long bytes) {
    if (bytes <= 0) return;
    if (open.size() >= MAX_OPEN) open.pollFirst();
    Held held = new Held(log, bytes);
    open.add(held);
    int i = indexOf(sumPaths, held.dirPath);
    if (i >= 0) sums[i] += bytes;
  }

  /** Adds each dir's open reservations to numbers[i * FIELDS + RESERVED] for paths[i]. */
  synchronized void addTo(String[] paths, long[] numbers) {
    long now = System.nanoTime();
    if (!summed || now - summedAt > REFRESH_NANOS || !java.util.Arrays.equals(paths, sumPaths)) {
      sumPaths = paths.clone();
      sums = sum(sumPaths);
      summedAt = now;
      summed = true;
    }
    for (int i = 0; i < paths.length; i++) {
      numbers[i * StrategyBridge.FIELDS + StrategyBridge.RESERVED] += sums[i];
    }
  }

  /** Each dir's bytes still to be written, dropping the reservations that ended. */
  private long[] sum(String[] paths) {
    long[] out = new long[paths.length];
    for (Iterator<Held> it = open.iterator(); it.hasNext();) {
      Held held = it.next();
      long written = held.log.dir().equals(held.logDir) ? held.log.size() : Long.MAX_VALUE;
      if (written >= held.bytes) {
        it.remove();
        continue;
      }
      int i = indexOf(paths, held.dirPath);
      if (i >= 0) out[i] += held.bytes - written;
    }
    return out;
  }

  private static int indexOf(String[] paths, String path) {
    for (int i = 0; i < paths.length; i++) {
      if (paths[i].equals(path)) return i;
    }
    return -1;
  }
}

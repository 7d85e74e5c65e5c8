package org.logdirstrategy.kafka;

import java.io.File;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * Bytes held on a log dir for partitions placed but not written yet, as lds-host keeps them: each
 * new log placed by a strategy reserves its expected size, less what it has written since. A
 * reservation ends once the log has written that much, or once it left the dir it was placed in
 * (deleted, renamed for deletion or moved). Called under Kafka's log creation lock.
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

  private final List<Held> open = new ArrayList<>();

  synchronized void add(UnifiedLog log, long bytes) {
    if (bytes <= 0) return;
    if (open.size() >= MAX_OPEN) open.remove(0);
    open.add(new Held(log, bytes));
  }

  /** Adds each dir's open reservations to numbers[i * FIELDS + RESERVED] for paths[i]. */
  synchronized void addTo(String[] paths, long[] numbers) {
    for (Iterator<Held> it = open.iterator(); it.hasNext();) {
      Held held = it.next();
      long written = held.log.dir().equals(held.logDir) ? held.log.size() : Long.MAX_VALUE;
      if (written >= held.bytes) {
        it.remove();
        continue;
      }
      for (int i = 0; i < paths.length; i++) {
        if (paths[i].equals(held.dirPath)) {
          numbers[i * StrategyBridge.FIELDS + StrategyBridge.RESERVED] += held.bytes - written;
          break;
        }
      }
    }
  }

  synchronized int size() {
    return open.size();
  }
}

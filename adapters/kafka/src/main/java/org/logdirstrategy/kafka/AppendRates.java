package org.logdirstrategy.kafka;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * Each log dir's append rate, sampled from UnifiedLog.size() by one daemon thread every
 * INTERVAL_MS: the growth of the dir's logs between two samples, over the time between them. Until
 * two samples exist (and for a dir that joined since) a dir's rate is unknown, which strategies see
 * as LDS_DIR_RATE_UNKNOWN. Deleted or moved logs make a dir shrink; that counts as no growth. The
 * mean log size of the last sample is the expected size of a partition of a topic not hosted yet.
 */
final class AppendRates {
  static final long INTERVAL_MS = 10_000;

  private static final class Sample {
    final long nanos;
    final Map<String, Long> bytes;
    final Map<String, Long> rates; // bytes per second; absent when unknown
    final long meanLogBytes;

    Sample(long nanos, Map<String, Long> bytes, Map<String, Long> rates, long meanLogBytes) {
      this.nanos = nanos;
      this.bytes = bytes;
      this.rates = rates;
      this.meanLogBytes = meanLogBytes;
    }
  }

  private volatile Sample last = new Sample(0, Map.of(), Map.of(), 0);
  private volatile Object logManager;
  private volatile LogManagerView view;
  private Thread thread;

  /** Starts sampling `logManager` (the first one seen; Kafka has one per broker). */
  synchronized void follow(Object logManager, LogManagerView view) {
    if (thread != null) return;
    this.logManager = logManager;
    this.view = view;
    thread = new Thread(this::run, "lds-append-rates");
    thread.setDaemon(true);
    thread.start();
  }

  /** Bytes per second appended to the dir at `path`, or -1 when unknown. */
  long rate(String path) {
    Long rate = last.rates.get(path);
    return rate == null ? -1 : rate;
  }

  long meanLogBytes() {
    return last.meanLogBytes;
  }

  private void run() {
    while (true) {
      try {
        sample();
        Thread.sleep(INTERVAL_MS);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // A log deleted while read, or a LogManager shutting down: the next sample tries again.
        try {
          Thread.sleep(INTERVAL_MS);
        } catch (InterruptedException stop) {
          return;
        }
      }
    }
  }

  private void sample() {
    Map<String, Long> bytes = new HashMap<>();
    long logs = 0;
    long total = 0;
    for (java.io.File dir : view.liveDirs(logManager)) bytes.put(dir.getPath(), 0L);
    for (UnifiedLog log : view.logs(logManager)) {
      long size = log.size();
      bytes.merge(log.parentDir(), size, Long::sum);
      total += size;
      logs++;
    }
    long now = System.nanoTime();
    Sample previous = last;
    Map<String, Long> rates = new HashMap<>();
    if (previous.nanos != 0) {
      double seconds = (now - previous.nanos) / 1e9;
      for (Map.Entry<String, Long> e : bytes.entrySet()) {
        Long before = previous.bytes.get(e.getKey());
        if (before == null || seconds <= 0) continue;
        rates.put(e.getKey(), (long) (Math.max(0, e.getValue() - before) / seconds));
      }
    }
    last = new Sample(now, bytes, rates, logs == 0 ? 0 : total / logs);
  }
}

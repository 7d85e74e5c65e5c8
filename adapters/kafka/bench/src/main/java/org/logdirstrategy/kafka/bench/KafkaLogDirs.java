package org.logdirstrategy.kafka.bench;

import java.io.File;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.CleanerConfig;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogManager;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

/**
 * A real Kafka LogManager over {@code dirs} fresh log dirs under one scratch folder, holding
 * {@code topics} x {@code partitionsPerTopic} empty logs created through getOrCreateLog, spread
 * round robin over the dirs (the agent, when attached, has no strategy yet). Index files are
 * kept at 4 KiB (mapped, sparse) so that 10,000 logs take little space and address space. Nothing
 * is scheduled: the LogManager is never started, as none of its background work bears on
 * nextLogDirs().
 */
final class KafkaLogDirs implements AutoCloseable {
  static final String TOPIC_PREFIX = "bench-topic-";

  final Path root;
  final List<File> dirs;
  final LogManager logManager;
  private final KafkaScheduler scheduler;
  private final BrokerTopicStats topicStats;

  private KafkaLogDirs(Path root, List<File> dirs, LogManager logManager, KafkaScheduler scheduler,
      BrokerTopicStats topicStats) {
    this.root = root;
    this.dirs = dirs;
    this.logManager = logManager;
    this.scheduler = scheduler;
    this.topicStats = topicStats;
  }

  static String topic(int t) {
    return String.format("%s%04d", TOPIC_PREFIX, t);
  }

  /** The folder the scratch dirs go under: /dev/shm (tmpfs) when usable, else the temp folder. */
  static Path scratchBase(String requested) {
    if (requested != null && !requested.isBlank()) return Path.of(requested);
    Path shm = Path.of("/dev/shm");
    if (Files.isDirectory(shm) && Files.isWritable(shm)) return shm;
    return Path.of(System.getProperty("java.io.tmpdir"));
  }

  static KafkaLogDirs create(Path base, int dirCount, int topics, int partitionsPerTopic)
      throws Exception {
    Path root = Files.createTempDirectory(base, "lds-nextlogdirs-");
    try {
      List<File> dirs = new ArrayList<>(dirCount);
      for (int i = 0; i < dirCount; i++) {
        dirs.add(Files.createDirectory(root.resolve(String.format("data-%02d", i))).toFile());
      }
      Map<String, Object> defaults = new HashMap<>();
      defaults.put("segment.index.bytes", 4096);
      LogConfig config = new LogConfig(defaults);
      KafkaScheduler scheduler = new KafkaScheduler(1, true, "bench-scheduler-");
      BrokerTopicStats topicStats = new BrokerTopicStats();
      LogManager logManager = new LogManager(
          dirs,
          List.of(),
          resource -> new Properties(),
          config,
          new CleanerConfig(false),
          1, // recovery threads per data dir
          Long.MAX_VALUE, // flush check
          Long.MAX_VALUE, // recovery offset checkpoint
          Long.MAX_VALUE, // log start offset checkpoint
          Long.MAX_VALUE, // retention check
          900_000, // max transaction timeout
          new ProducerStateManagerConfig(86_400_000, false),
          600_000, // producer id expiration check
          scheduler,
          topicStats,
          new LogDirFailureChannel(dirCount),
          Time.SYSTEM,
          false, // remote storage
          30_000, // initial task delay
          (cleanerConfig, liveDirs, logs, failures, time) -> {
            throw new UnsupportedOperationException("the benchmark never starts the cleaner");
          });
      KafkaLogDirs out = new KafkaLogDirs(root, dirs, logManager, scheduler, topicStats);
      try {
        // Round robin over the dirs, through Kafka's preferred-dir path of createLog (as for a
        // reassignment to a given dir): the same even spread Kafka's fewest-logs rule gives, without
        // its O(logs) nextLogDirs() per creation, which makes 10,000 creations take minutes.
        int next = 0;
        for (int t = 0; t < topics; t++) {
          String topic = topic(t);
          for (int p = 0; p < partitionsPerTopic; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            File dir = dirs.get(next++ % dirCount);
            logManager.maybeUpdatePreferredLogDir(tp, dir.getAbsolutePath());
            UnifiedLog log = logManager.getOrCreateLog(tp, Optional.empty());
            if (!log.parentDirFile().getAbsoluteFile().equals(dir.getAbsoluteFile())) {
              throw new IllegalStateException(tp + " was created in " + log.parentDir()
                  + ", not in its preferred dir " + dir);
            }
          }
        }
      } catch (Exception | Error e) {
        out.close();
        throw e;
      }
      return out;
    } catch (Exception | Error e) {
      deleteTree(root);
      throw e;
    }
  }

  /** Logs per live dir, by path. */
  Map<String, Integer> logsPerDir() {
    Map<String, Integer> out = new HashMap<>();
    logManager.allLogs().forEach(log -> out.merge(log.parentDir(), 1, Integer::sum));
    return out;
  }

  @Override
  public void close() throws IOException {
    try {
      logManager.shutdown();
      scheduler.shutdown();
      topicStats.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      deleteTree(root);
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) return;
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.delete(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
        if (e != null) throw e;
        Files.delete(dir);
        return FileVisitResult.CONTINUE;
      }
    });
  }
}

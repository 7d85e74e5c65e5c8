package org.logdirstrategy.kafka.bench;

import java.io.File;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.storage.internals.log.LogManager;

/**
 * What the benchmarks measure against: a real LogManager with its logs ({@link KafkaLogDirs}) and,
 * for a strategy other than "kafka", the agent's selector with that strategy loaded and this
 * thread's partition context set, checked to rank nextLogDirs() itself. For "kafka" it checks that
 * the agent is absent, so that the figure is Kafka's own method and nothing else.
 */
final class PlacementFixture implements AutoCloseable {
  static final String KAFKA_OWN = "kafka";

  final KafkaLogDirs kafka;
  final LogManager logManager;
  final AgentControl agent; // null for Kafka's own
  final TopicPartition next; // the partition being placed
  final String description;
  private final long fallbacksAtStart;

  private PlacementFixture(KafkaLogDirs kafka, AgentControl agent, TopicPartition next,
      String description) throws ReflectiveOperationException {
    this.kafka = kafka;
    this.logManager = kafka.logManager;
    this.agent = agent;
    this.next = next;
    this.description = description;
    this.fallbacksAtStart = agent == null ? 0 : agent.fallbacks();
  }

  static PlacementFixture open(String strategy, int partitions, int dirs, int topics,
      String pluginDir, String scratchDir) throws Exception {
    if (topics < 1 || partitions % topics != 0) {
      throw new IllegalArgumentException("partitions (" + partitions
          + ") must be a multiple of topics (" + topics + ")");
    }
    boolean kafkaOwn = KAFKA_OWN.equals(strategy);
    AgentControl agent = AgentControl.find();
    if (kafkaOwn && (AgentControl.attached() || agent != null)) {
      throw new IllegalStateException("strategy=kafka measures Kafka's own nextLogDirs(): run it in"
          + " a JVM without -javaagent and without the agent's jar on the class path");
    }
    if (!kafkaOwn && (!AgentControl.attached() || agent == null)) {
      throw new IllegalStateException("strategy=" + strategy + " needs the agent: add"
          + " -jvmArgsAppend -javaagent:<build>/adapters/kafka/lds-kafka-agent.jar");
    }
    if (!kafkaOwn && pluginDir.isBlank()) {
      throw new IllegalArgumentException("strategy=" + strategy
          + " needs -p pluginDir=<folder of liblds_" + strategy + ".so>");
    }
    int perTopic = partitions / topics;
    // A new partition of a topic the broker already hosts: the advice counts and sizes its logs.
    TopicPartition next = new TopicPartition(KafkaLogDirs.topic(topics / 2), perTopic);
    long start = System.nanoTime();
    KafkaLogDirs kafka =
        KafkaLogDirs.create(KafkaLogDirs.scratchBase(scratchDir), dirs, topics, perTopic);
    try {
      double created = (System.nanoTime() - start) / 1e9;
      int held = kafka.logManager.allLogs().size();
      if (held != partitions) {
        throw new IllegalStateException("expected " + partitions + " logs, the LogManager holds "
            + held);
      }
      String text = String.format("%d logs on %d dirs under %s, created in %.1f s (logs per dir"
          + " %s)", partitions, dirs, kafka.root, created, spread(kafka));
      if (!kafkaOwn) text += "; " + loadStrategy(kafka, agent, strategy, pluginDir, next);
      // The logs of a broker that has run a while sit in the old generation, compacted: every JVM
      // then walks the same kind of heap, not whatever layout the setup's allocations left.
      System.gc();
      System.gc();
      return new PlacementFixture(kafka, kafkaOwn ? null : agent, next, text);
    } catch (Exception | Error e) {
      kafka.close();
      throw e;
    }
  }

  /** Loads the strategy and checks that nextLogDirs() is now ranked by it, not by Kafka. */
  private static String loadStrategy(KafkaLogDirs kafka, AgentControl agent, String strategy,
      String pluginDir, TopicPartition next) throws Exception {
    StringJoiner logDirs = new StringJoiner(",");
    for (File d : kafka.dirs) logDirs.add(d.getPath());
    Map<String, Object> config = new HashMap<>();
    config.put("log.dirs", logDirs.toString());
    config.put("log.directory.select.strategy", strategy);
    config.put("log.directory.select.plugin.dir", pluginDir);
    agent.configure(config);
    agent.enterPartition(next);
    long fallbacksBefore = agent.fallbacks();
    agent.clearRankedGeneration();
    List<File> ranked = kafka.logManager.nextLogDirs();
    long generation = agent.lastRankedGeneration();
    if (generation == 0 || ranked.size() != kafka.dirs.size()
        || agent.fallbacks() != fallbacksBefore) {
      throw new IllegalStateException("strategy " + strategy + " from " + pluginDir
          + " did not rank nextLogDirs() (generation " + generation + ", " + ranked.size()
          + " dirs, fallbacks " + agent.fallbacks() + "); see the agent's lines above");
    }
    return "nextLogDirs() for " + next + " ranked by strategy " + agent.strategyName()
        + " (generation " + generation + "), first " + ranked.get(0).getName();
  }

  private static String spread(KafkaLogDirs kafka) {
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (int n : kafka.logsPerDir().values()) {
      min = Math.min(min, n);
      max = Math.max(max, n);
    }
    return min + ".." + max;
  }

  /**
   * Fails when the strategy fell back since the setup, or when the last nextLogDirs() on this
   * thread was not ranked by it: such a call runs Kafka's method after the advice, and its figure
   * would be neither the advised one nor Kafka's.
   */
  void checkRanked(String strategy) throws ReflectiveOperationException {
    if (agent == null) return;
    long fellBack = agent.fallbacks() - fallbacksAtStart;
    if (fellBack != 0 || agent.lastRankedGeneration() == 0) {
      throw new IllegalStateException("strategy " + strategy + " fell back " + fellBack
          + " time(s) while measured, or stopped ranking");
    }
  }

  @Override
  public void close() throws IOException {
    kafka.close();
  }
}

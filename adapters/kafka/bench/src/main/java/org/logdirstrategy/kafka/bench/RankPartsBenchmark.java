package org.logdirstrategy.kafka.bench;

import java.io.File;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.storage.internals.log.LogManager;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The parts of the advised nextLogDirs() (LogDirectorySelector.rank), each timed alone on the same
 * LogManager, in JVMs started with the agent: where the advised call spends its time. The parts
 * repeat rank()'s own steps (its source is the reference; it is private to the agent):
 * <ul>
 *   <li>{@code advised}: the whole advised nextLogDirs(), as NextLogDirsBenchmark measures it;
 *   <li>{@code kafkaOwnAgentIdle}: nextLogDirs() with the agent attached but no partition context,
 *       so the advice returns at once and Kafka's own body runs (the agent's idle cost);
 *   <li>{@code allLogs}: LogManager.allLogs(), the set rank() walks;
 *   <li>{@code countLogs}: rank()'s walk: each log's dir looked up by parentDir() in a HashMap, its
 *       topic compared, the topic's logs sized;
 *   <li>{@code dirSpace}: liveLogDirs() and each dir's total and usable space (two statfs each);
 *   <li>{@code bridgeRank}: StrategyBridge.rank alone, the JNI call with its hand-over to the
 *       bridge's rank thread and the plugin's ranking, on the arrays rank() would pass.
 * </ul>
 * Run with JMH's Main: {@code java -jar lds-kafka-agent-bench.jar RankPartsBenchmark -jvmArgsAppend
 * "-Xms2g -Xmx2g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn
 * -javaagent:<build>/adapters/kafka/lds-kafka-agent.jar" -p pluginDir=<build>/plugins}.
 */
@State(Scope.Thread)
@Threads(1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g",
    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
public class RankPartsBenchmark {
  // StrategyBridge's layout of `numbers`: FIELDS longs per dir.
  private static final int FIELDS = 7;
  private static final int TOTAL = 0;
  private static final int USABLE = 1;
  private static final int PARTITIONS = 3;
  private static final int TOPIC_PARTITIONS = 4;
  private static final int FLAGS = 5;
  private static final long DIR_RATE_UNKNOWN = 0x4L;
  // StrategyBridge.RANK_PLACE: the rank of a placement, as the advice asks it.
  private static final int RANK_PLACE = 0;

  @Param({"size"})
  public String strategy;

  @Param({"10000"})
  public int partitions;

  @Param({"12"})
  public int dirs;

  @Param({"100"})
  public int topics;

  @Param({""})
  public String pluginDir;

  @Param({""})
  public String scratchDir;

  private PlacementFixture fixture;
  private LogManager logManager;
  private boolean checkRanked;
  private MethodHandle bridgeRank;
  private String topic;
  private int partition;
  private String[] paths;
  private long[] numbers;
  private int[] order;
  private double[] scores;

  @Setup(Level.Trial)
  public void setUp(BenchmarkParams params) throws Throwable {
    if (PlacementFixture.KAFKA_OWN.equals(strategy)) {
      throw new IllegalArgumentException("RankPartsBenchmark times the advice's parts: give it a"
          + " strategy (-p strategy=size) and the agent");
    }
    fixture = PlacementFixture.open(strategy, partitions, dirs, topics, pluginDir, scratchDir);
    logManager = fixture.logManager;
    topic = fixture.next.topic();
    partition = fixture.next.partition();
    String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
    checkRanked = method.equals("advised");
    if (method.equals("kafkaOwnAgentIdle")) fixture.agent.enterPartition(null);

    Class<?> bridge = Class.forName("org.logdirstrategy.kafka.StrategyBridge", true,
        ClassLoader.getSystemClassLoader());
    Method rank = bridge.getDeclaredMethod("rank", String.class, int.class, long.class,
        String[].class, long[].class, int.class, int[].class, double[].class, long.class);
    rank.setAccessible(true);
    bridgeRank = MethodHandles.lookup().unreflect(rank);
    Collection<File> live = logManager.liveLogDirs();
    paths = new String[live.size()];
    int i = 0;
    for (File d : live) paths[i++] = d.getPath();
    numbers = dirSpace();
    countInto(numbers);
    for (int k = 0; k < paths.length; k++) numbers[k * FIELDS + FLAGS] |= DIR_RATE_UNKNOWN;
    order = new int[paths.length];
    scores = new double[paths.length];
    int ranked = bridgeRank();
    if (ranked != paths.length) {
      throw new IllegalStateException("StrategyBridge.rank returned " + ranked + " for "
          + paths.length + " dirs");
    }
    System.out.println(fixture.description + "; timing " + method);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    if (fixture == null) return;
    try {
      if (checkRanked) fixture.checkRanked(strategy);
    } finally {
      fixture.close();
      fixture = null;
    }
  }

  @Benchmark
  public List<File> advised() {
    return logManager.nextLogDirs();
  }

  @Benchmark
  public List<File> kafkaOwnAgentIdle() {
    return logManager.nextLogDirs();
  }

  @Benchmark
  public Set<UnifiedLog> allLogs() {
    return logManager.allLogs();
  }

  @Benchmark
  public long[] countLogs() {
    long[] out = new long[paths.length * FIELDS];
    countInto(out);
    return out;
  }

  @Benchmark
  public long[] dirSpace() {
    Collection<File> live = logManager.liveLogDirs();
    long[] out = new long[live.size() * FIELDS];
    int i = 0;
    for (File d : live) {
      out[i * FIELDS + TOTAL] = d.getTotalSpace();
      out[i * FIELDS + USABLE] = d.getUsableSpace();
      i++;
    }
    return out;
  }

  @Benchmark
  public int bridgeRank() throws Throwable {
    return (int) bridgeRank.invokeExact(topic, partition, 0L, paths, numbers, RANK_PLACE, order,
        scores, 1000L);
  }

  /** rank()'s walk over the logs, into numbers[k * FIELDS + PARTITIONS / TOPIC_PARTITIONS]. */
  private long countInto(long[] out) {
    HashMap<String, Integer> index = new HashMap<>(paths.length * 2);
    for (int i = 0; i < paths.length; i++) index.put(paths[i], i);
    long topicBytes = 0;
    long topicLogs = 0;
    for (UnifiedLog log : logManager.allLogs()) {
      Integer k = index.get(log.parentDir());
      if (k == null) continue;
      out[k * FIELDS + PARTITIONS]++;
      if (log.topicPartition().topic().equals(topic)) {
        out[k * FIELDS + TOPIC_PARTITIONS]++;
        topicBytes += log.size();
        topicLogs++;
      }
    }
    return topicLogs > 0 ? topicBytes / topicLogs : 0;
  }
}

package org.logdirstrategy.kafka.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.storage.internals.log.LogManager;
import org.openjdk.jmh.annotations.AuxCounters;
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

/**
 * Kafka 4.4's LogManager.nextLogDirs() on a real LogManager holding {@code partitions} logs on
 * {@code dirs} log dirs: with {@code strategy=kafka} in a JVM without the agent (Kafka's own
 * method), otherwise in a JVM started with {@code -javaagent:lds-kafka-agent.jar} with that strategy
 * loaded from {@code pluginDir}, for a new partition of an existing topic (the advice's whole
 * path: the live dirs, their space, every log counted, the topic's logs sized, the JNI rank).
 *
 * <p>{@link AgentBench} runs the variants, each in its own fork with the right JVM options, and
 * prints the comparison. With JMH's own Main, give the advised variants {@code -jvmArgsAppend
 * -javaagent:<build>/adapters/kafka/lds-kafka-agent.jar -p pluginDir=<build>/plugins}.
 * {@link RankPartsBenchmark} times the advised call's parts one by one.
 */
@State(Scope.Thread) // set up by the thread that measures: the partition context is per thread
@Threads(1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g",
    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
public class NextLogDirsBenchmark {
  /** "kafka": Kafka's own method, no agent; else a strategy name: the advised method. */
  @Param({"kafka"})
  public String strategy;

  @Param({"10000"})
  public int partitions;

  @Param({"12"})
  public int dirs;

  @Param({"100"})
  public int topics;

  /** The folder holding the strategy plugins (liblds_{strategy}.so); unused for "kafka". */
  @Param({""})
  public String pluginDir;

  /** Where the scratch log dirs go; empty: /dev/shm when writable, else the temp folder. */
  @Param({""})
  public String scratchDir;

  private PlacementFixture fixture;
  private LogManager logManager;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    fixture = PlacementFixture.open(strategy, partitions, dirs, topics, pluginDir, scratchDir);
    logManager = fixture.logManager;
    System.out.println(fixture.description);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    if (fixture == null) return;
    try {
      fixture.checkRanked(strategy);
    } finally {
      fixture.close();
      fixture = null;
    }
  }

  /**
   * The JVM's CPU time (all threads: the caller, the bridge's rank thread, GC, the agent's sampler)
   * over the calls of one iteration. On a shared machine the average time also counts the time the
   * caller waited for a core; this does not, so its ratio holds better under load.
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class CpuTime {
    private static final OperatingSystemMXBean OS =
        (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    public long cpuNanos;
    public long calls;
    private long start;

    @Setup(Level.Iteration)
    public void start() {
      calls = 0;
      cpuNanos = 0;
      start = OS.getProcessCpuTime();
    }

    @TearDown(Level.Iteration)
    public void stop() {
      cpuNanos = OS.getProcessCpuTime() - start;
    }
  }

  @Benchmark
  public List<File> nextLogDirs(CpuTime cpu) {
    cpu.calls++;
    return logManager.nextLogDirs();
  }
}

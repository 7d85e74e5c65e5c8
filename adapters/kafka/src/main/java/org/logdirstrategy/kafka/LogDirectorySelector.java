package org.logdirstrategy.kafka;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ObjectName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * Ranks Kafka's log dirs with the active strategy in place of Kafka's fewest-partitions rule. The
 * advice on nextLogDirs calls {@link #select}; the advice on the enclosing createLog (4.4) or
 * getOrCreateLog (4.3) brackets it with {@link #enterPartition} and {@link #exitPartition}, which
 * supply the partition nextLogDirs does not take. Anything that goes wrong here returns null, and
 * Kafka's own method then runs: the agent never fails a log creation by itself.
 *
 * <p>Once Kafka has created a log (UnifiedLog.create returned inside that bracket, {@link
 * #logCreated}, and the method returned it), the strategy is told where it went through its
 * placed, whichever decided the dir: the strategy, Kafka's own order after a fallback, or a dir
 * named by AlterReplicaLogDirs or the controller. Not for a log getOrCreateLog found open, not for
 * the future log of a move, not when the creation threw.
 */
public final class LogDirectorySelector implements LogDirectorySelectorMBean {
  public static final String MBEAN_NAME = "kafka.log:type=LogDirectorySelector";

  /** The partition whose log is being created on this thread, and what the strategy decided. */
  private static final class Creation {
    TopicPartition partition;
    Object created; // the log UnifiedLog.create returned within the bracket, or null
    long expectedBytes;
    long generation; // 0: Kafka's own order applied
    Figures figures; // what the rank of this creation read, or null when none ranked
    double[] scores; // the strategy's score of each of figures' dirs, or null
  }

  /** The live dirs and what a rank reads of each, in StrategyBridge's layout. */
  private static final class Figures {
    final File[] live;
    final String[] paths;
    final long[] numbers;
    final long expectedBytes; // the partition's expected size

    Figures(File[] live, String[] paths, long[] numbers, long expectedBytes) {
      this.live = live;
      this.paths = paths;
      this.numbers = numbers;
      this.expectedBytes = expectedBytes;
    }

    int indexOf(String path) {
      for (int i = 0; i < paths.length; i++) {
        if (paths[i].equals(path)) return i;
      }
      return -1;
    }
  }

  private static final LogDirectorySelector INSTANCE = new LogDirectorySelector();
  private static final ThreadLocal<Creation> CREATION = ThreadLocal.withInitial(Creation::new);

  private static volatile LogManagerView view;
  private static volatile boolean bridgeLoaded;
  private static volatile String defaultPluginDir = "plugins";
  private static volatile SelectorConfig applied;
  private static final Reservations RESERVATIONS = new Reservations();
  private static final AppendRates RATES = new AppendRates();
  private static final AtomicLong PLACEMENTS = new AtomicLong();
  private static final AtomicLong NO_ELIGIBLE_DIR = new AtomicLong();
  private static final AtomicLong AGENT_ERRORS = new AtomicLong();
  private static final AtomicLong REFUSED_SWAPS = new AtomicLong();
  private static final AgentMetrics METRICS = new AgentMetrics();
  private static final SelectorReconfigurable RECONFIGURABLE = new SelectorReconfigurable();
  private static volatile String lastPlacement = "";

  private LogDirectorySelector() {}

  /** Called once by the agent, before Kafka's classes load. */
  static void init(LogManagerView kafkaView, String pluginDir) {
    view = kafkaView;
    defaultPluginDir = pluginDir;
    bridgeLoaded = true;
    StrategyBridge.setLogLevel(AgentLog.nativeLevel());
    try {
      ManagementFactory.getPlatformMBeanServer()
          .registerMBean(INSTANCE, new ObjectName(MBEAN_NAME));
    } catch (Exception e) {
      AgentLog.warn("Cannot register MBean " + MBEAN_NAME + ": " + e);
    }
    METRICS.registerFixed(LogDirectorySelector::fallbacks);
    METRICS.strategyChanged("kafka", "");
  }

  /** The fallbacks of one reason, in AgentMetrics.REASONS order. */
  private static long fallbacks(int reason) {
    if (reason < 3) return bridgeLoaded ? StrategyBridge.fallbackReasons()[reason] : 0;
    return reason == 3 ? NO_ELIGIBLE_DIR.get() : AGENT_ERRORS.get();
  }

  // ---- the advice's entry points (public: the advice is inlined into Kafka's classes) ----

  public static void enterPartition(Object partition) {
    Creation c = CREATION.get();
    c.partition = partition instanceof TopicPartition ? (TopicPartition) partition : null;
    c.created = null;
    c.expectedBytes = 0;
    c.generation = 0;
    c.figures = null;
    c.scores = null;
  }

  /** UnifiedLog.create returned `log`: inside the bracket, the log being created. */
  public static void logCreated(Object log) {
    Creation c = CREATION.get();
    if (c.partition != null) c.created = log;
  }

  /** The bracket's method returned `log` (null when it threw). */
  public static void exitPartition(Object logManager, Object log) {
    Creation c = CREATION.get();
    try {
      if (log != null && log == c.created && log instanceof UnifiedLog
          && !((UnifiedLog) log).isFuture()) {
        UnifiedLog created = (UnifiedLog) log;
        if (c.generation != 0) recordPlacement(c, created);
        tellPlaced(logManager, c, created);
      }
    } finally {
      c.partition = null;
      c.created = null;
      c.generation = 0;
      c.figures = null;
      c.scores = null;
    }
  }

  /**
   * The strategy's order of the live, uncordoned dirs, in the type nextLogDirs returns, or null
   * for Kafka's own order (no strategy, no partition known, one live dir, or a fallback).
   */
  public static Object select(Object logManager) {
    Creation c = CREATION.get();
    if (c.partition == null || !bridgeLoaded || applied == null || applied.strategy == null) {
      return null;
    }
    long start = System.nanoTime();
    try {
      LogManagerView v = view;
      if (v == null) v = kafka43View(logManager);
      return rank(logManager, v, c);
    } catch (Throwable t) {
      AGENT_ERRORS.incrementAndGet();
      AgentLog.warn("Cannot rank the log dirs for " + c.partition + " (" + t
          + "); using Kafka's own order.");
      return null;
    } finally {
      METRICS.recordDuration(System.nanoTime() - start);
    }
  }

  /** Registers the dynamic-config hook with the broker's DynamicBrokerConfig, and applies its config. */
  public static void attach(Object dynamicBrokerConfig, Object broker) {
    try {
      Object config = broker.getClass().getMethod("config").invoke(broker);
      configure(((AbstractConfig) config).originals());
      dynamicBrokerConfig.getClass()
          .getMethod("addReconfigurable", org.apache.kafka.common.Reconfigurable.class)
          .invoke(dynamicBrokerConfig, RECONFIGURABLE);
    } catch (Throwable t) {
      AgentLog.error("Cannot register with Kafka's dynamic broker config (" + t
          + "); log.directory.select.* changes need a restart.");
    }
  }

  // ---- configuration ----

  /** Applies a broker config: loads the strategy it names when that changed. */
  static synchronized void configure(Map<String, ?> config) {
    SelectorConfig next = SelectorConfig.from(config, defaultPluginDir);
    RECONFIGURABLE.remember(config);
    SelectorConfig previous = applied;
    if (!next.loadsDifferently(previous)) {
      applied = next;
      return;
    }
    if (!bridgeLoaded) return;
    METRICS.registerDirs(next.logDirs);
    if (next.strategy == null) {
      if (previous != null && previous.strategy != null) {
        StrategyBridge.load(null, null, null, 0, null, null);
        METRICS.strategyChanged("kafka", "");
        AgentLog.info(SelectorConfig.STRATEGY + " is not set: Kafka's own placement rule applies.");
      }
      applied = next;
      return;
    }
    String[] paths = next.logDirs.toArray(new String[0]);
    long[] numbers = new long[paths.length * StrategyBridge.FIELDS];
    for (int i = 0; i < paths.length; i++) fillSpace(new File(paths[i]), numbers, i);
    String before = describeActive();
    String error = StrategyBridge.load(next.pluginDir, next.strategy, next.optionArray(),
        next.validationTimeoutMs, paths, numbers);
    if (error != null) {
      REFUSED_SWAPS.incrementAndGet();
      AgentLog.error("Cannot load log directory strategy " + next.describe() + ": " + error
          + " Keeping " + before + ".");
      return;
    }
    applied = next;
    METRICS.strategyChanged(StrategyBridge.strategyName(), StrategyBridge.strategyVersion());
    AgentLog.info("Log directory selection: strategy " + StrategyBridge.strategyName() + " "
        + StrategyBridge.strategyVersion() + " (generation " + StrategyBridge.generation()
        + ") now places new partitions, " + (previous == null || previous.strategy == null
            ? "in place of Kafka's own rule" : "swapped from " + before) + "; " + next.describe()
        + ".");
  }

  private static String describeActive() {
    if (!bridgeLoaded || StrategyBridge.generation() == 0) return "Kafka's own rule";
    return "strategy " + StrategyBridge.strategyName() + " (generation "
        + StrategyBridge.generation() + ")";
  }

  // ---- one placement ----

  private static Object rank(Object logManager, LogManagerView v, Creation c) {
    File[] live = v.liveDirs(logManager).toArray(new File[0]);
    if (live.length <= 1) return null;
    Figures f = gather(logManager, v, live, c.partition.topic(), null);
    c.figures = f;
    int n = live.length;
    int[] order = new int[n];
    double[] scores = new double[n];
    int len = StrategyBridge.rank(c.partition.topic(), c.partition.partition(), f.expectedBytes,
        f.paths, f.numbers, StrategyBridge.RANK_PLACE, order, scores, applied.rankTimeoutMs);
    if (len == StrategyBridge.NO_ELIGIBLE_DIR) {
      NO_ELIGIBLE_DIR.incrementAndGet();
      AgentLog.warn("Strategy " + StrategyBridge.strategyName() + " found no eligible log dir for "
          + c.partition + "; using Kafka's own order.");
      return null;
    }
    if (len < 0) return null; // FELL_BACK (the bridge logged and counted it) or NO_STRATEGY
    long[] numbers = f.numbers;
    List<File> out = new ArrayList<>(n);
    boolean[] listed = new boolean[n];
    for (int k = 0; k < len; k++) {
      int i = order[k];
      if ((numbers[i * StrategyBridge.FIELDS + StrategyBridge.FLAGS] & StrategyBridge.DIR_CORDONED) != 0
          || listed[i]) {
        continue; // cordons hold whatever the plugin declares
      }
      listed[i] = true;
      out.add(f.live[i]);
    }
    if (out.isEmpty()) return null; // every dir cordoned: Kafka's rule picks one
    // Dirs the strategy left out come last, in log.dirs order, so that a creation the ranked dirs
    // all refuse still finds a disk: the agent never fails createLog by itself.
    for (int i = 0; i < n; i++) {
      if (!listed[i]
          && (numbers[i * StrategyBridge.FIELDS + StrategyBridge.FLAGS] & StrategyBridge.DIR_CORDONED) == 0) {
        out.add(f.live[i]);
      }
    }
    c.expectedBytes = f.expectedBytes;
    c.scores = scores;
    c.generation = StrategyBridge.generation();
    return v.toKafkaList(out);
  }

  /**
   * What a strategy is told of each live dir: space, cordon, append rate, its partitions and the
   * topic's (over allLogs(), current and future replicas), and bytes reserved; and the expected
   * size of a partition of `topic`, the mean of its logs here other than `created`.
   */
  private static Figures gather(Object logManager, LogManagerView v, File[] live, String topic,
      UnifiedLog created) {
    int n = live.length;
    RATES.follow(logManager, v);
    Set<String> cordoned = v.cordoned(logManager);
    String[] paths = new String[n];
    long[] numbers = new long[n * StrategyBridge.FIELDS];
    HashMap<String, Integer> index = new HashMap<>(n * 2);
    for (int i = 0; i < n; i++) {
      paths[i] = live[i].getPath();
      index.put(paths[i], i);
      fillSpace(live[i], numbers, i);
      long flags = numbers[i * StrategyBridge.FIELDS + StrategyBridge.FLAGS];
      if (cordoned.contains(paths[i])) flags |= StrategyBridge.DIR_CORDONED;
      long rate = RATES.rate(paths[i]);
      if (rate < 0) flags |= StrategyBridge.DIR_RATE_UNKNOWN;
      numbers[i * StrategyBridge.FIELDS + StrategyBridge.RATE] = Math.max(rate, 0);
      numbers[i * StrategyBridge.FIELDS + StrategyBridge.FLAGS] = flags;
    }
    long topicBytes = 0;
    long topicLogs = 0;
    for (UnifiedLog log : v.logs(logManager)) {
      Integer k = index.get(log.parentDir());
      if (k == null) continue;
      numbers[k * StrategyBridge.FIELDS + StrategyBridge.PARTITIONS]++;
      if (log.topicPartition().topic().equals(topic)) {
        numbers[k * StrategyBridge.FIELDS + StrategyBridge.TOPIC_PARTITIONS]++;
        if (log != created) {
          topicBytes += log.size();
          topicLogs++;
        }
      }
    }
    RESERVATIONS.addTo(paths, numbers);
    long expected = topicLogs > 0 ? topicBytes / topicLogs : RATES.meanLogBytes();
    return new Figures(live, paths, numbers, expected);
  }

  private static void fillSpace(File dir, long[] numbers, int i) {
    long total = dir.getTotalSpace();
    long usable = dir.getUsableSpace();
    if (total > 0) {
      numbers[i * StrategyBridge.FIELDS + StrategyBridge.TOTAL] = total;
      numbers[i * StrategyBridge.FIELDS + StrategyBridge.USABLE] = Math.min(usable, total);
    } else {
      numbers[i * StrategyBridge.FIELDS + StrategyBridge.FLAGS] |= StrategyBridge.DIR_SPACE_UNKNOWN;
    }
  }

  /** A creation the strategy's ranking decided: its reservation, the counters, the INFO line. */
  private static void recordPlacement(Creation c, UnifiedLog log) {
    RESERVATIONS.add(log, c.expectedBytes);
    PLACEMENTS.incrementAndGet();
    METRICS.recordPlacement(StrategyBridge.strategyName(), log.parentDir());
    lastPlacement = c.partition + " -> " + log.parentDir() + " (strategy "
        + StrategyBridge.strategyName() + ", generation " + c.generation + ")";
    AgentLog.info("Placed " + lastPlacement + ".");
    if (AgentLog.debugEnabled()) logScores(c, log);
  }

  /** At DEBUG, the score the strategy gave each dir, when it gave any. */
  private static void logScores(Creation c, UnifiedLog log) {
    if (c.scores == null || c.figures == null) return;
    StringBuilder line = new StringBuilder();
    boolean any = false;
    for (int i = 0; i < c.scores.length; i++) {
      any |= !Double.isNaN(c.scores[i]);
      line.append(i == 0 ? "" : ", ").append(c.figures.paths[i]).append(' ').append(c.scores[i]);
    }
    if (!any) return;
    AgentLog.debug("Scores of " + c.partition + " by strategy " + StrategyBridge.strategyName()
        + " (" + StrategyBridge.scoreName() + "): " + line + "; created in " + log.parentDir()
        + ".");
  }

  /**
   * Tells the active strategy, through its placed, that `log` was created in its dir, with that
   * dir's figures as a rank reads them, the new log counted. They are the ones this creation's
   * rank read, plus the new log and its reservation; without a rank (one live dir, a dir chosen
   * by AlterReplicaLogDirs or the controller) they are gathered now.
   */
  private static void tellPlaced(Object logManager, Creation c, UnifiedLog log) {
    SelectorConfig config = applied;
    if (!bridgeLoaded || config == null || config.strategy == null) return;
    try {
      if (!StrategyBridge.takesPlaced()) return;
      String dir = log.parentDir();
      Figures f = c.figures;
      int k = f == null ? -1 : f.indexOf(dir);
      long[] one = new long[StrategyBridge.FIELDS];
      if (k >= 0) {
        System.arraycopy(f.numbers, k * StrategyBridge.FIELDS, one, 0, StrategyBridge.FIELDS);
        one[StrategyBridge.PARTITIONS]++;
        one[StrategyBridge.TOPIC_PARTITIONS]++;
        long[] reserved = new long[f.paths.length * StrategyBridge.FIELDS];
        RESERVATIONS.addTo(f.paths, reserved);
        one[StrategyBridge.RESERVED] = reserved[k * StrategyBridge.FIELDS + StrategyBridge.RESERVED];
        one[StrategyBridge.TOTAL] = 0;
        one[StrategyBridge.USABLE] = 0;
        one[StrategyBridge.FLAGS] &= ~StrategyBridge.DIR_SPACE_UNKNOWN;
        fillSpace(new File(dir), one, 0); // the space the new log left
      } else {
        LogManagerView v = view;
        if (v == null) v = kafka43View(logManager);
        f = gather(logManager, v, v.liveDirs(logManager).toArray(new File[0]),
            c.partition.topic(), log);
        k = f.indexOf(dir);
        if (k < 0) return; // the dir went offline as the log was created
        System.arraycopy(f.numbers, k * StrategyBridge.FIELDS, one, 0, StrategyBridge.FIELDS);
      }
      StrategyBridge.placed(c.partition.topic(), c.partition.partition(), f.expectedBytes, dir,
          one, config.rankTimeoutMs);
    } catch (Throwable t) {
      AgentLog.warn("Cannot tell strategy " + config.strategy + " that " + c.partition
          + " was created in " + log.parentDir() + " (" + t + ").");
    }
  }

  private static synchronized LogManagerView kafka43View(Object logManager)
      throws ReflectiveOperationException {
    if (view == null) view = new Kafka43LogManager(logManager.getClass());
    return view;
  }

  // ---- the MBean ----

  @Override
  public String getStrategy() {
    return bridgeLoaded && StrategyBridge.generation() != 0 ? StrategyBridge.strategyName()
        : "kafka";
  }

  @Override
  public String getVersion() {
    return bridgeLoaded && StrategyBridge.generation() != 0 ? StrategyBridge.strategyVersion() : "";
  }

  @Override
  public long getGeneration() {
    return bridgeLoaded ? StrategyBridge.generation() : 0;
  }

  @Override
  public long getSwaps() {
    return bridgeLoaded ? StrategyBridge.swaps() : 0;
  }

  @Override
  public long getFallbacks() {
    long n = 0;
    for (int r = 0; r < AgentMetrics.REASONS.length; r++) n += fallbacks(r);
    return n;
  }

  @Override
  public long getRefusedSwaps() {
    return REFUSED_SWAPS.get();
  }

  @Override
  public long getPlacements() {
    return PLACEMENTS.get();
  }

  @Override
  public String getLastPlacement() {
    return lastPlacement;
  }
}

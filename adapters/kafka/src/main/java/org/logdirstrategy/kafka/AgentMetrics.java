package org.logdirstrategy.kafka;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/**
 * The agent's figures that lds-host publishes as lds_ metrics (docs/operations.md#metrics), as
 * JMX MBeans beside LogDirectorySelector's, for the Prometheus JMX exporter; conf/jmx-exporter.yml
 * gives them their lds_ names. Under kafka.log:type=LogDirectorySelector:
 * <pre>
 *   name=Placements,strategy=S                  Count  placements strategy S decided
 *   name=Fallbacks,reason=R                     Count  rankings replaced by Kafka's own order
 *   name=PlacementDuration                      Count, SumSeconds
 *   name=PlacementDuration,le=B                 Count  decisions of at most B seconds
 *   name=StrategyInfo,strategy=S,version=V      Count  1, for the active strategy only
 *   name=LogDir,logDirectory="D"                TotalBytes, UsableBytes, FillRatio, Placements
 * </pre>
 * A bean that cannot be registered costs one WARN line and nothing else: placement goes on.
 */
final class AgentMetrics {
  static final String DOMAIN_TYPE = "kafka.log:type=LogDirectorySelector";

  /** The buckets' upper bounds, in seconds: lds-host's (LatencyHistogram), 1 µs to 1 s. */
  static final String[] BOUNDS = {"0.000001", "0.0000025", "0.000005", "0.00001", "0.000025",
      "0.00005", "0.0001", "0.00025", "0.001", "0.01", "0.1", "1"};

  /** Why a ranking was replaced by Kafka's own order, as lds_placement_fallbacks_total says it. */
  static final String[] REASONS = {"plugin_error", "invalid_ranking", "timeout", "no_eligible_dir",
      "agent_error"};

  private static final long[] BOUNDS_NS = new long[BOUNDS.length];

  static {
    for (int i = 0; i < BOUNDS.length; i++) {
      BOUNDS_NS[i] = new BigDecimal(BOUNDS[i]).movePointRight(9).longValueExact();
    }
  }

  private final MBeanServer server;
  private final ConcurrentHashMap<String, AtomicLong> byStrategy = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, AtomicLong> byDir = new ConcurrentHashMap<>();
  private final AtomicLongArray buckets = new AtomicLongArray(BOUNDS.length + 1);
  private final AtomicLong durationCount = new AtomicLong();
  private final AtomicLong durationSumNs = new AtomicLong();
  private ObjectName info; // the active strategy's StrategyInfo bean; guarded by this

  AgentMetrics(MBeanServer server) {
    this.server = server;
  }

  AgentMetrics() {
    this(ManagementFactory.getPlatformMBeanServer());
  }

  /**
   * Registers the beans that exist from the start: the fallbacks by reason (`reasons` gives each
   * count, in REASONS order, when asked) and the placement duration with its buckets.
   */
  void registerFixed(java.util.function.IntToLongFunction reasons) {
    for (int i = 0; i < REASONS.length; i++) {
      final int r = i;
      count(",name=Fallbacks,reason=" + REASONS[i], () -> reasons.applyAsLong(r));
    }
    register(DOMAIN_TYPE + ",name=PlacementDuration", new PlacementDurationMBean() {
      @Override
      public long getCount() {
        return durationCount.get();
      }

      @Override
      public double getSumSeconds() {
        return durationSumNs.get() / 1e9;
      }
    }, PlacementDurationMBean.class);
    for (int i = 0; i <= BOUNDS.length; i++) {
      final int upTo = i;
      count(",name=PlacementDuration,le=" + (i < BOUNDS.length ? BOUNDS[i] : "+Inf"), () -> {
        long n = 0;
        for (int k = 0; k <= upTo; k++) n += buckets.get(k);
        return n;
      });
    }
  }

  /** A bean per log dir of `logDirs` not yet known; the ones already registered stay. */
  void registerDirs(List<String> logDirs) {
    for (String path : logDirs) dirCounter(path);
  }

  /** One decision of the strategy, from the figures' gathering to its answer or fallback. */
  void recordDuration(long nanos) {
    long ns = Math.max(nanos, 0);
    int i = 0;
    while (i < BOUNDS_NS.length && ns > BOUNDS_NS[i]) i++;
    buckets.incrementAndGet(i);
    durationSumNs.addAndGet(ns);
    durationCount.incrementAndGet();
  }

  /** A creation strategy `strategy` placed in log dir `dir`. */
  void recordPlacement(String strategy, String dir) {
    byStrategy.computeIfAbsent(strategy, s -> {
      AtomicLong n = new AtomicLong();
      count(",name=Placements,strategy=" + quoteIfNeeded(s), n::get);
      return n;
    }).incrementAndGet();
    dirCounter(dir).incrementAndGet();
  }

  /** The active strategy changed: its StrategyInfo bean replaces the last one (none: "kafka"). */
  synchronized void strategyChanged(String name, String version) {
    if (info != null) {
      try {
        server.unregisterMBean(info);
      } catch (Exception e) {
        AgentLog.warn("Cannot unregister MBean " + info + ": " + e);
      }
      info = null;
    }
    info = count(",name=StrategyInfo,strategy=" + quoteIfNeeded(name) + ",version="
        + quoteIfNeeded(version.isEmpty() ? "none" : version), () -> 1);
  }

  private AtomicLong dirCounter(String path) {
    return byDir.computeIfAbsent(path, p -> {
      AtomicLong placements = new AtomicLong();
      File dir = new File(p);
      register(DOMAIN_TYPE + ",name=LogDir,logDirectory=" + ObjectName.quote(p),
          new LogDirFiguresMBean() {
            @Override
            public long getTotalBytes() {
              return dir.getTotalSpace();
            }

            @Override
            public long getUsableBytes() {
              return Math.min(dir.getUsableSpace(), dir.getTotalSpace());
            }

            @Override
            public double getFillRatio() {
              long total = dir.getTotalSpace();
              if (total <= 0) return Double.NaN;
              return (double) (total - Math.min(dir.getUsableSpace(), total)) / total;
            }

            @Override
            public long getPlacements() {
              return placements.get();
            }
          }, LogDirFiguresMBean.class);
      return placements;
    });
  }

  private ObjectName count(String properties, LongSupplier value) {
    return register(DOMAIN_TYPE + properties, value::getAsLong, CountMBean.class);
  }

  private <T> ObjectName register(String name, T bean, Class<T> type) {
    try {
      ObjectName objectName = new ObjectName(name);
      server.registerMBean(new StandardMBean(bean, type), objectName);
      return objectName;
    } catch (Exception e) {
      AgentLog.warn("Cannot register MBean " + name + ": " + e);
      return null;
    }
  }

  /** A strategy's name or version as an ObjectName value: quoted when it holds , = : " * ? \n. */
  static String quoteIfNeeded(String value) {
    return value.matches("[^,=:\"*?\\n]+") ? value : ObjectName.quote(value);
  }
}

package org.logdirstrategy.kafka;

/** kafka.log:type=LogDirectorySelector: what the agent's strategy is doing, for JmxTool and JMX exporters. */
public interface LogDirectorySelectorMBean {
  /** The active strategy's name, or "kafka" when Kafka's own rule applies. */
  String getStrategy();

  String getVersion();

  /** Bumped by every strategy loaded; 0 before the first. */
  long getGeneration();

  long getSwaps();

  /** Strategy changes refused (the load or its dry run failed); the active strategy stayed. */
  long getRefusedSwaps();

  /**
   * Placements left to Kafka's own order (the plugin failed, answered badly or timed out), and
   * placed calls the plugin did not return from in time.
   */
  long getFallbacks();

  /** Placements the strategy decided. */
  long getPlacements();

  /** "topic-partition -> dir (strategy, generation N)" of the latest placement, or "". */
  String getLastPlacement();
}

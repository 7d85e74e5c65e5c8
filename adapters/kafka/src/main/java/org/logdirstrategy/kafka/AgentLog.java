package org.logdirstrategy.kafka;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's log lines, written through Kafka's own SLF4J binding so that they land in the
 * broker's server log. The native bridge's lines (plugin loads, swaps, fallbacks, the plugins' own
 * messages) come back here through {@link #fromNative}, under the host library's logger names.
 */
final class AgentLog {
  static final String NAME = "org.logdirstrategy.kafka.LogDirectorySelector";

  private static final int TRACE = 0;
  private static final int DEBUG = 1;
  private static final int INFO = 2;
  private static final int WARN = 3;

  private AgentLog() {}

  private static Logger logger() {
    return LoggerFactory.getLogger(NAME);
  }

  static boolean debugEnabled() {
    return logger().isDebugEnabled();
  }

  static void debug(String message) {
    logger().debug(message);
  }

  static void info(String message) {
    logger().info(message);
  }

  static void warn(String message) {
    logger().warn(message);
  }

  static void error(String message) {
    logger().error(message);
  }

  /** Called by the bridge for each line of the host library (level: spdlog's, trace = 0). */
  static void fromNative(int level, String name, String message) {
    Logger log = LoggerFactory.getLogger("org.logdirstrategy.kafka." + name);
    if (level <= TRACE) {
      log.trace(message);
    } else if (level == DEBUG) {
      log.debug(message);
    } else if (level == INFO) {
      log.info(message);
    } else if (level == WARN) {
      log.warn(message);
    } else {
      log.error(message);
    }
  }

  /** spdlog's level for the bridge: the most verbose level SLF4J has enabled for the agent. */
  static String nativeLevel() {
    Logger log = LoggerFactory.getLogger("org.logdirstrategy.kafka");
    if (log.isTraceEnabled()) return "trace";
    if (log.isDebugEnabled()) return "debug";
    if (log.isInfoEnabled()) return "info";
    if (log.isWarnEnabled()) return "warn";
    return "error";
  }
}

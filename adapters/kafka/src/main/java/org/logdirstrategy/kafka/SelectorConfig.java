package org.logdirstrategy.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The agent's settings, read from the broker's config in Kafka's own terms: {@code
 * log.directory.select.strategy}, {@code log.directory.select.plugin.dir} and {@code
 * log.directory.select.<strategy>.<option>}, plus the two bounds on plugin calls. Immutable; two
 * configs are equal when they would load the same strategy the same way.
 */
final class SelectorConfig {
  static final String PREFIX = "log.directory.select.";
  static final String STRATEGY = PREFIX + "strategy";
  static final String PLUGIN_DIR = PREFIX + "plugin.dir";
  static final String RANK_TIMEOUT_MS = PREFIX + "plugin.rank.timeout.ms";
  static final String VALIDATION_TIMEOUT_MS = PREFIX + "plugin.validation.timeout.ms";
  static final long DEFAULT_RANK_TIMEOUT_MS = 1000;
  static final long DEFAULT_VALIDATION_TIMEOUT_MS = 5000;

  final String strategy; // null: Kafka's own rule
  final String pluginDir;
  final TreeMap<String, String> options; // option name (prefix removed) -> value
  final long rankTimeoutMs;
  final long validationTimeoutMs;
  final List<String> logDirs; // log.dirs (or log.dir), for the validation dry run

  private SelectorConfig(String strategy, String pluginDir, TreeMap<String, String> options,
      long rankTimeoutMs, long validationTimeoutMs, List<String> logDirs) {
    this.strategy = strategy;
    this.pluginDir = pluginDir;
    this.options = options;
    this.rankTimeoutMs = rankTimeoutMs;
    this.validationTimeoutMs = validationTimeoutMs;
    this.logDirs = logDirs;
  }

  /** Reads the settings from a broker config map; a bad number keeps its default, logged. */
  static SelectorConfig from(Map<String, ?> config, String defaultPluginDir) {
    String strategy = text(config.get(STRATEGY));
    String pluginDir = text(config.get(PLUGIN_DIR));
    TreeMap<String, String> options = new TreeMap<>();
    if (strategy != null) {
      String optionPrefix = PREFIX + strategy + ".";
      for (Map.Entry<String, ?> e : config.entrySet()) {
        String value = text(e.getValue());
        if (e.getKey().startsWith(optionPrefix) && value != null) {
          options.put(e.getKey().substring(optionPrefix.length()), value);
        }
      }
    }
    List<String> logDirs = paths(config.get("log.dirs"));
    if (logDirs.isEmpty()) logDirs = paths(config.get("log.dir"));
    return new SelectorConfig(strategy, pluginDir != null ? pluginDir : defaultPluginDir, options,
        millis(config, RANK_TIMEOUT_MS, DEFAULT_RANK_TIMEOUT_MS),
        millis(config, VALIDATION_TIMEOUT_MS, DEFAULT_VALIDATION_TIMEOUT_MS), logDirs);
  }

  /** The option list the bridge takes: key, value, key, value ... */
  String[] optionArray() {
    String[] out = new String[options.size() * 2];
    int i = 0;
    for (Map.Entry<String, String> e : options.entrySet()) {
      out[i++] = e.getKey();
      out[i++] = e.getValue();
    }
    return out;
  }

  /** Whether {@code other} would load a different strategy, or the same one differently. */
  boolean loadsDifferently(SelectorConfig other) {
    return other == null || !Objects.equals(strategy, other.strategy)
        || !Objects.equals(pluginDir, other.pluginDir) || !options.equals(other.options)
        || validationTimeoutMs != other.validationTimeoutMs;
  }

  /** "size (plugin dir /x, options a=1, b=2)" for log lines. */
  String describe() {
    StringBuilder out = new StringBuilder(strategy == null ? "Kafka's own rule" : strategy);
    out.append(" (plugin dir ").append(pluginDir);
    if (!options.isEmpty()) {
      out.append(", options ");
      String sep = "";
      for (Map.Entry<String, String> e : options.entrySet()) {
        out.append(sep).append(e.getKey()).append('=').append(e.getValue());
        sep = ", ";
      }
    }
    return out.append(')').toString();
  }

  /** A list config: a List once Kafka parsed it, a comma-separated String in the originals. */
  private static List<String> paths(Object value) {
    List<String> out = new ArrayList<>();
    Iterable<?> items = value instanceof Iterable ? (Iterable<?>) value
        : value == null ? List.of() : List.of((Object[]) value.toString().split(","));
    for (Object item : items) {
      String path = text(item);
      if (path != null) out.add(path);
    }
    return out;
  }

  private static String text(Object value) {
    if (value == null) return null;
    String s = value.toString().trim();
    return s.isEmpty() ? null : s;
  }

  private static long millis(Map<String, ?> config, String key, long fallback) {
    String value = text(config.get(key));
    if (value == null) return fallback;
    try {
      long parsed = Long.parseLong(value);
      if (parsed > 0) return parsed;
    } catch (NumberFormatException e) {
      // reported below
    }
    AgentLog.error(key + "=" + value + " is not a positive number of milliseconds; using "
        + fallback + ".");
    return fallback;
  }
}

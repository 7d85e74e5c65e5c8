package org.logdirstrategy.kafka;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.Reconfigurable;

/**
 * The agent's part of Kafka's dynamic broker config (KIP-226): registered with
 * DynamicBrokerConfig.addReconfigurable, it is handed the broker's whole config whenever one of its
 * keys changes, per broker or as the cluster default, and loads the strategy the config names. A
 * strategy that fails to load keeps the previous one, so validation never refuses the change: the
 * other keys of the same alteration still apply.
 */
final class SelectorReconfigurable implements Reconfigurable {
  private volatile Set<String> keys = baseKeys();

  private static Set<String> baseKeys() {
    Set<String> keys = new TreeSet<>();
    keys.add(SelectorConfig.STRATEGY);
    keys.add(SelectorConfig.PLUGIN_DIR);
    keys.add(SelectorConfig.RANK_TIMEOUT_MS);
    keys.add(SelectorConfig.VALIDATION_TIMEOUT_MS);
    return keys;
  }

  /**
   * Kafka asks only about the keys listed here: the fixed ones and every strategy option present
   * in the config last seen. An option first added later takes effect with its strategy's next
   * load, or at once when set together with log.directory.select.strategy.
   */
  void remember(Map<String, ?> config) {
    Set<String> next = baseKeys();
    for (String key : config.keySet()) {
      if (key.startsWith(SelectorConfig.PREFIX)) next.add(key);
    }
    keys = next;
  }

  @Override
  public Set<String> reconfigurableConfigs() {
    return keys;
  }

  @Override
  public void validateReconfiguration(Map<String, ?> configs) {
    // Every value is accepted here; a strategy that fails to load is reported by reconfigure.
  }

  @Override
  public void reconfigure(Map<String, ?> configs) {
    LogDirectorySelector.configure(configs);
  }

  @Override
  public void configure(Map<String, ?> configs) {
    LogDirectorySelector.configure(configs);
  }
}

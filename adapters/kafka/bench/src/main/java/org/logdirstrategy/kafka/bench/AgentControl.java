package org.logdirstrategy.kafka.bench;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Map;

/**
 * Reaches the agent's selector from the benchmark, which a broker does through its config and the
 * advice on createLog: loading a strategy (LogDirectorySelector.configure, package-private) and
 * setting the partition whose placement nextLogDirs() is asked for (enterPartition). The agent is
 * on the system class path only in a fork started with -javaagent; the benchmark never packages it.
 */
final class AgentControl {
  static final String SELECTOR = "org.logdirstrategy.kafka.LogDirectorySelector";

  private final Class<?> selector;

  private AgentControl(Class<?> selector) {
    this.selector = selector;
  }

  /** Whether this JVM was started with a -javaagent whose jar is the project's agent. */
  static boolean attached() {
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("-javaagent:") && arg.contains("lds-kafka-agent")) return true;
    }
    return false;
  }

  /** The selector's class, or null when the agent's classes cannot be loaded in this JVM. */
  static AgentControl find() {
    try {
      return new AgentControl(Class.forName(SELECTOR, true, ClassLoader.getSystemClassLoader()));
    } catch (ClassNotFoundException e) {
      return null;
    }
  }

  /** Applies a broker config, as the dynamic-config hook does. */
  void configure(Map<String, ?> config) throws ReflectiveOperationException {
    Method m = selector.getDeclaredMethod("configure", Map.class);
    m.setAccessible(true);
    m.invoke(null, config);
  }

  /** What createLog's enter advice does before nextLogDirs(): sets this thread's partition. */
  void enterPartition(Object topicPartition) throws ReflectiveOperationException {
    selector.getMethod("enterPartition", Object.class).invoke(null, topicPartition);
  }

  /**
   * The generation of the strategy that ranked the last nextLogDirs() call on this thread, 0 when
   * Kafka's own method ran instead (no strategy, no partition, a fallback).
   */
  long lastRankedGeneration() throws ReflectiveOperationException {
    Field creationField = selector.getDeclaredField("CREATION");
    creationField.setAccessible(true);
    Object creation = ((ThreadLocal<?>) creationField.get(null)).get();
    Field generation = creation.getClass().getDeclaredField("generation");
    generation.setAccessible(true);
    return generation.getLong(creation);
  }

  /** Clears this thread's generation, as enterPartition does, without touching the partition. */
  void clearRankedGeneration() throws ReflectiveOperationException {
    Field creationField = selector.getDeclaredField("CREATION");
    creationField.setAccessible(true);
    Object creation = ((ThreadLocal<?>) creationField.get(null)).get();
    Field generation = creation.getClass().getDeclaredField("generation");
    generation.setAccessible(true);
    generation.setLong(creation, 0);
  }

  /** The active strategy's name, from the selector's MBean view. */
  String strategyName() throws ReflectiveOperationException {
    Field instance = selector.getDeclaredField("INSTANCE");
    instance.setAccessible(true);
    return (String) selector.getMethod("getStrategy").invoke(instance.get(null));
  }

  long fallbacks() throws ReflectiveOperationException {
    Field instance = selector.getDeclaredField("INSTANCE");
    instance.setAccessible(true);
    return (Long) selector.getMethod("getFallbacks").invoke(instance.get(null));
  }
}

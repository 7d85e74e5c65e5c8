package org.logdirstrategy.kafka;

import java.io.InputStream;
import java.util.Properties;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.matcher.ElementMatchers;
import net.bytebuddy.pool.TypePool;

/**
 * Where this Kafka decides a new log's dir, found in the class files before any of them loads:
 * Kafka 4.4's Java LogManager (nextLogDirs called from createLog), or Kafka 4.3's Scala one
 * (nextLogDirs called from getOrCreateLog), and the UnifiedLog.create both call to make the new
 * log. Null when Kafka does not have the shape the agent advises.
 */
final class KafkaHook {
  static final String TOPIC_PARTITION = "org.apache.kafka.common.TopicPartition";
  static final String UNIFIED_LOG = "org.apache.kafka.storage.internals.log.UnifiedLog";

  final String logManagerClass;
  final String contextMethod; // the method that calls nextLogDirs, with the partition first
  final ElementMatcher<MethodDescription> contextMatcher;
  final boolean javaLogManager;

  private KafkaHook(String logManagerClass, String contextMethod, int contextArity,
      boolean javaLogManager) {
    this.logManagerClass = logManagerClass;
    this.contextMethod = contextMethod;
    this.contextMatcher = ElementMatchers.<MethodDescription>named(contextMethod)
        .and(ElementMatchers.takesArguments(contextArity))
        .and(ElementMatchers.takesArgument(0, ElementMatchers.named(TOPIC_PARTITION)));
    this.javaLogManager = javaLogManager;
  }

  static KafkaHook find(TypePool pool) {
    KafkaHook kafka44 = new KafkaHook(Kafka44LogManager.CLASS, "createLog", 5, true);
    if (kafka44.presentIn(pool, "java.util.List")) return kafka44;
    KafkaHook kafka43 = new KafkaHook(Kafka43LogManager.CLASS, "getOrCreateLog", 5, false);
    if (kafka43.presentIn(pool, "scala.collection.immutable.List")) return kafka43;
    return null;
  }

  private boolean presentIn(TypePool pool, String returnType) {
    TypePool.Resolution resolution = pool.describe(logManagerClass);
    TypePool.Resolution log = pool.describe(UNIFIED_LOG);
    if (!resolution.isResolved() || !log.isResolved()) return false;
    TypeDescription type = resolution.resolve();
    return !type.getDeclaredMethods().filter(nextLogDirs(returnType)).isEmpty()
        && !type.getDeclaredMethods().filter(contextMatcher).isEmpty()
        && !log.resolve().getDeclaredMethods().filter(logCreation()).isEmpty();
  }

  /** UnifiedLog.create(File dir, ...): the static factory of a log, new or opened from disk. */
  static ElementMatcher.Junction<MethodDescription> logCreation() {
    return ElementMatchers.<MethodDescription>named("create")
        .and(ElementMatchers.isStatic())
        .and(ElementMatchers.takesArgument(0, ElementMatchers.named("java.io.File")))
        .and(ElementMatchers.returns(ElementMatchers.named(UNIFIED_LOG)));
  }

  static ElementMatcher.Junction<MethodDescription> nextLogDirs(String returnType) {
    return ElementMatchers.<MethodDescription>named("nextLogDirs")
        .and(ElementMatchers.takesArguments(0))
        .and(ElementMatchers.returns(ElementMatchers.named(returnType)));
  }

  /** Kafka's version from kafka-clients' kafka/kafka-version.properties, or "unknown". */
  static String kafkaVersion(ClassLoader loader) {
    try (InputStream in = loader.getResourceAsStream("kafka/kafka-version.properties")) {
      if (in == null) return "unknown";
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown").trim();
    } catch (Exception e) {
      return "unknown";
    }
  }
}

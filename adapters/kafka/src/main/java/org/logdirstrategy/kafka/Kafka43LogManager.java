package org.logdirstrategy.kafka;

import java.io.File;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Kafka 4.3's LogManager (Scala, kafka.log), reached through method handles: this build compiles
 * against 4.4, where that class is only a factory. Scala collections are viewed as Java ones.
 */
final class Kafka43LogManager implements LogManagerView {
  static final String CLASS = "kafka.log.LogManager";

  private final MethodHandle liveLogDirs;
  private final MethodHandle cordonedLogDirs;
  private final MethodHandle allLogs;

  Kafka43LogManager(Class<?> logManager) throws ReflectiveOperationException {
    liveLogDirs = getter(logManager, "liveLogDirs", scala.collection.Seq.class);
    cordonedLogDirs = getter(logManager, "cordonedLogDirs", scala.collection.Set.class);
    allLogs = getter(logManager, "allLogs", scala.collection.Iterable.class);
  }

  /** A handle on the public no-argument method `name`, typed (Object) -> Object. */
  private static MethodHandle getter(Class<?> owner, String name, Class<?> returns)
      throws ReflectiveOperationException {
    return MethodHandles.publicLookup()
        .findVirtual(owner, name, MethodType.methodType(returns))
        .asType(MethodType.methodType(Object.class, Object.class));
  }

  @Override
  @SuppressWarnings("unchecked")
  public Collection<File> liveDirs(Object logManager) {
    return CollectionConverters.asJavaCollection(
        (scala.collection.Iterable<File>) invoke(liveLogDirs, logManager));
  }

  @Override
  @SuppressWarnings("unchecked")
  public Set<String> cordoned(Object logManager) {
    return CollectionConverters.asJava((scala.collection.Set<String>) invoke(cordonedLogDirs,
        logManager));
  }

  @Override
  @SuppressWarnings("unchecked")
  public Iterable<UnifiedLog> logs(Object logManager) {
    return CollectionConverters.asJava(
        (scala.collection.Iterable<UnifiedLog>) invoke(allLogs, logManager));
  }

  @Override
  public Object toKafkaList(List<File> dirs) {
    return CollectionConverters.asScala(dirs).toList();
  }

  private static Object invoke(MethodHandle handle, Object logManager) {
    try {
      return handle.invokeExact(logManager);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}

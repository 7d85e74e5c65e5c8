package org.logdirstrategy.kafka;

import java.io.File;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.apache.kafka.storage.internals.log.LogManager;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/** Kafka 4.4's LogManager (Java, storage module), read through direct calls. */
final class Kafka44LogManager implements LogManagerView {
  static final String CLASS = "org.apache.kafka.storage.internals.log.LogManager";

  @Override
  public Collection<File> liveDirs(Object logManager) {
    return ((LogManager) logManager).liveLogDirs();
  }

  @Override
  public Set<String> cordoned(Object logManager) {
    return ((LogManager) logManager).cordonedLogDirs();
  }

  @Override
  public Iterable<UnifiedLog> logs(Object logManager) {
    return ((LogManager) logManager).allLogs();
  }

  @Override
  public Object toKafkaList(List<File> dirs) {
    return dirs;
  }
}

package org.logdirstrategy.kafka;

import java.io.File;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * What the selector reads from one Kafka version's LogManager: the live log dirs in log.dirs
 * order, the cordoned ones, and every log (current and future replicas). Both supported versions
 * share the Java UnifiedLog; they differ in the LogManager around it.
 */
interface LogManagerView {
  Collection<File> liveDirs(Object logManager);

  /** Cordoned dirs, by File.getPath() of the live dir, as Kafka's own rule compares them. */
  Set<String> cordoned(Object logManager);

  Iterable<UnifiedLog> logs(Object logManager);

  /** The ranked dirs in the type this version's nextLogDirs returns. */
  Object toKafkaList(List<File> dirs);
}

package org.logdirstrategy.kafka;

import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * The code ByteBuddy inlines into Kafka's classes. Each piece only calls LogDirectorySelector;
 * a Throwable from it is suppressed, so Kafka's method then runs as if the agent were absent.
 */
final class SelectionAdvice {
  private SelectionAdvice() {}

  /** LogManager.nextLogDirs(): the strategy's order replaces Kafka's, or Kafka's method runs. */
  static final class NextLogDirs {
    private NextLogDirs() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    static Object enter(@Advice.This Object logManager) {
      return LogDirectorySelector.select(logManager);
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.Enter Object ranked,
        @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object result) {
      if (ranked != null) result = ranked;
    }
  }

  /**
   * createLog (4.4) or getOrCreateLog (4.3): the partition nextLogDirs is asked for, and the log
   * the method returns (null when it threw).
   */
  static final class PartitionContext {
    private PartitionContext() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.Argument(0) Object partition) {
      LogDirectorySelector.enterPartition(partition);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.This Object logManager,
        @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object log) {
      LogDirectorySelector.exitPartition(logManager, log);
    }
  }

  /**
   * UnifiedLog.create, which LogManager calls to open the logs on disk at startup (loadLog) and,
   * inside the partition context, only to make a new log: there it tells a log created by the
   * call from one getOrCreateLog (4.3) found already open.
   */
  static final class LogCreated {
    private LogCreated() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.Return(typing = Assigner.Typing.DYNAMIC) Object log) {
      LogDirectorySelector.logCreated(log);
    }
  }

  /** DynamicBrokerConfig.addReconfigurables(KafkaBroker): registers the agent's keys. */
  static final class DynamicConfig {
    private DynamicConfig() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object dynamicBrokerConfig, @Advice.Argument(0) Object broker) {
      LogDirectorySelector.attach(dynamicBrokerConfig, broker);
    }
  }
}

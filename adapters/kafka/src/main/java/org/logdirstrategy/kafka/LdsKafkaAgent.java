package org.logdirstrategy.kafka;

import java.io.File;
import java.lang.instrument.Instrumentation;
import java.util.HashMap;
import java.util.Map;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatchers;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.utility.JavaModule;

/**
 * lds-kafka-agent.jar's entry point: {@code KAFKA_OPTS="-javaagent:<path>/lds-kafka-agent.jar"}.
 *
 * <p>Agent options, comma separated: {@code bridge=<path of liblds_kafka_bridge.so>} (default: beside
 * the jar) and {@code plugin.dir=<default log.directory.select.plugin.dir>} (default: plugins/ beside
 * the jar); {@code trace=true} prints each class the agent transforms to stderr. The broker always starts: when the hook cannot be installed, one ERROR line says why
 * and Kafka keeps its own placement rule.
 */
public final class LdsKafkaAgent {
  static final String BRIDGE_LIBRARY = "liblds_kafka_bridge.so";

  private LdsKafkaAgent() {}

  public static void premain(String arguments, Instrumentation instrumentation) {
    try {
      install(arguments, instrumentation);
    } catch (Throwable t) {
      AgentLog.error("lds-kafka-agent could not install its hook (" + t
          + "); Kafka keeps its own placement rule.");
    }
  }

  private static void install(String arguments, Instrumentation instrumentation) {
    ClassLoader loader = ClassLoader.getSystemClassLoader();
    KafkaHook hook = KafkaHook.find(TypePool.Default.of(loader));
    if (hook == null) {
      AgentLog.error("lds-kafka-agent: Kafka " + KafkaHook.kafkaVersion(loader)
          + " has no LogManager.nextLogDirs() called from createLog or getOrCreateLog (looked in "
          + Kafka44LogManager.CLASS + " and " + Kafka43LogManager.CLASS + ", beside "
          + KafkaHook.UNIFIED_LOG + ".create); Kafka keeps its own placement rule.");
      return;
    }
    Map<String, String> options = parse(arguments);
    File home = jarFolder();
    String bridge = options.getOrDefault("bridge", new File(home, BRIDGE_LIBRARY).getPath());
    try {
      System.load(new File(bridge).getAbsolutePath());
    } catch (Throwable t) {
      AgentLog.error("lds-kafka-agent cannot load its native bridge " + bridge + " (" + t
          + "); Kafka keeps its own placement rule.");
      return;
    }
    LogDirectorySelector.init(hook.javaLogManager ? new Kafka44LogManager() : null,
        options.getOrDefault("plugin.dir", new File(home, "plugins").getPath()));
    AgentBuilder.Listener listener = new ErrorListener();
    if ("true".equals(options.get("trace"))) {
      listener = new AgentBuilder.Listener.Compound(listener,
          AgentBuilder.Listener.StreamWriting.toSystemError().withTransformationsOnly());
    }
    new AgentBuilder.Default()
        .disableClassFormatChanges()
        .with(listener)
        .type(ElementMatchers.named(hook.logManagerClass))
        .transform((builder, type, classLoader, module, domain) -> builder
            .visit(Advice.to(SelectionAdvice.NextLogDirs.class)
                .on(ElementMatchers.named("nextLogDirs").and(ElementMatchers.takesArguments(0))))
            .visit(Advice.to(SelectionAdvice.PartitionContext.class).on(hook.contextMatcher)))
        .type(ElementMatchers.named(KafkaHook.UNIFIED_LOG))
        .transform((builder, type, classLoader, module, domain) -> builder
            .visit(Advice.to(SelectionAdvice.LogCreated.class).on(KafkaHook.logCreation())))
        .type(ElementMatchers.named("kafka.server.DynamicBrokerConfig"))
        .transform((builder, type, classLoader, module, domain) -> builder
            .visit(Advice.to(SelectionAdvice.DynamicConfig.class)
                .on(ElementMatchers.named("addReconfigurables").and(ElementMatchers.takesArgument(
                    0, ElementMatchers.named("kafka.server.KafkaBroker"))))))
        .installOn(instrumentation);
    AgentLog.info("lds-kafka-agent: Kafka " + KafkaHook.kafkaVersion(loader) + ", advising "
        + hook.logManagerClass + ".nextLogDirs() within " + hook.contextMethod
        + ", and UnifiedLog.create.");
  }

  private static Map<String, String> parse(String arguments) {
    Map<String, String> out = new HashMap<>();
    if (arguments == null) return out;
    for (String part : arguments.split(",")) {
      int eq = part.indexOf('=');
      if (eq > 0) out.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
    }
    return out;
  }

  private static File jarFolder() {
    try {
      File jar = new File(LdsKafkaAgent.class.getProtectionDomain().getCodeSource().getLocation()
          .toURI());
      return jar.getParentFile();
    } catch (Exception e) {
      return new File(".");
    }
  }

  /** A class the agent could not transform keeps Kafka's code; the reason is logged once. */
  private static final class ErrorListener extends AgentBuilder.Listener.Adapter {
    @Override
    public void onError(String typeName, ClassLoader classLoader, JavaModule module,
        boolean loaded, Throwable throwable) {
      AgentLog.error("lds-kafka-agent cannot advise " + typeName + " (" + throwable
          + "); Kafka keeps its own placement rule there.");
    }

    @Override
    public void onTransformation(TypeDescription type, ClassLoader classLoader, JavaModule module,
        boolean loaded, DynamicType dynamicType) {
      // quiet: the install line says what is advised
    }
  }
}

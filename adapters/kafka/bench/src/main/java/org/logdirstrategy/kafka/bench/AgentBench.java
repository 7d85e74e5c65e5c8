package org.logdirstrategy.kafka.bench;

import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs {@link NextLogDirsBenchmark} once per variant and round, each in its own fork: Kafka's own
 * nextLogDirs() in a JVM without the agent, then the advised one with each strategy in a JVM
 * started with -javaagent; then prints one table of the figures and their ratio to Kafka's own.
 *
 * <pre>
 * java -cp lds-kafka-agent-bench.jar org.logdirstrategy.kafka.bench.AgentBench
 *     --agent BUILD/adapters/kafka/lds-kafka-agent.jar --plugin-dir BUILD/plugins
 *     [--strategies size,partition] [--rounds 1] [--goal 1.5] [--table FILE]
 *     [JMH options: -f 1 -wi 3 -w 2s -i 5 -r 2s -prof stack ...]
 * </pre>
 *
 * With several rounds the variants take turns (own, size, partition, own, size, ...), so that a
 * machine whose load drifts weighs on all of them alike: the table gives each variant's median over
 * the rounds and the median of the per-round ratios. JMH's own output goes to stdout, then the
 * table; {@code --table} also writes the table to FILE. Exits 1 when a variant fails (its setup
 * checks that the advice really ranks), 2 on bad usage; missing the goal is reported in the table,
 * not by the exit code.
 */
public final class AgentBench {
  private static final String USAGE = "usage: AgentBench --agent <lds-kafka-agent.jar>"
      + " --plugin-dir <folder of the strategy plugins> [--strategies size,partition]"
      + " [--rounds 1] [--goal 1.5] [--table FILE] [JMH options]";
  private static final List<String> JVM_ARGS =
      List.of("-Xms2g", "-Xmx2g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
  private static final String OWN = "kafka";

  private AgentBench() {}

  /** One variant's figures, one entry per round. */
  private static final class Figures {
    final String label;
    final List<Double> scores = new ArrayList<>(); // average time per call
    final List<Double> errors = new ArrayList<>(); // JMH's 99.9% half-interval
    final List<Double> cpus = new ArrayList<>(); // the JVM's CPU time per call, NaN if unknown
    String unit = "";

    Figures(String label) {
      this.label = label;
    }

    void add(RunResult run) {
      Result<?> result = run.getPrimaryResult();
      scores.add(result.getScore());
      errors.add(result.getScoreError());
      unit = result.getScoreUnit();
      Result<?> cpu = run.getSecondaryResults().get("cpuNanos");
      Result<?> calls = run.getSecondaryResults().get("calls");
      cpus.add(cpu == null || calls == null || calls.getScore() <= 0 ? Double.NaN
          : cpu.getScore() / calls.getScore() / 1000.0);
    }
  }

  public static void main(String[] args) throws Exception {
    String agent = null;
    String pluginDir = null;
    List<String> strategies = List.of("size", "partition");
    int rounds = 1;
    double goal = 1.5;
    String table = null;
    int i = 0;
    try {
      for (; i < args.length && (args[i].startsWith("--") || args[i].equals("-h")); i++) {
        switch (args[i]) {
          case "--agent" -> agent = args[++i];
          case "--plugin-dir" -> pluginDir = args[++i];
          case "--strategies" -> strategies = Arrays.asList(args[++i].split(","));
          case "--rounds" -> rounds = Integer.parseInt(args[++i]);
          case "--goal" -> goal = Double.parseDouble(args[++i]);
          case "--table" -> table = args[++i];
          case "-h", "--help" -> {
            System.out.println(USAGE);
            return;
          }
          default -> throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
      if (rounds < 1) throw new IllegalArgumentException("--rounds must be 1 or more");
    } catch (ArrayIndexOutOfBoundsException e) {
      System.err.println("AgentBench: " + args[i - 1] + " needs a value\n" + USAGE);
      System.exit(2);
    } catch (IllegalArgumentException e) {
      System.err.println("AgentBench: " + e.getMessage() + "\n" + USAGE);
      System.exit(2);
    }
    if (agent == null || pluginDir == null || !new File(agent).isFile()
        || !new File(pluginDir).isDirectory()) {
      System.err.println("AgentBench: --agent must name the agent's jar and --plugin-dir the"
          + " plugins' folder (got " + agent + ", " + pluginDir + ")\n" + USAGE);
      System.exit(2);
    }
    CommandLineOptions cmd = new CommandLineOptions(Arrays.copyOfRange(args, i, args.length));
    if (cmd.getForkCount().orElse(1) < 1) {
      System.err.println("AgentBench: every variant needs its own fork (-f 1 or more)");
      System.exit(2);
    }

    String agentArg = "-javaagent:" + new File(agent).getAbsolutePath();
    String plugins = new File(pluginDir).getAbsolutePath();
    Map<String, Figures> figures = new LinkedHashMap<>();
    figures.put(OWN, new Figures("Kafka's own (no agent)"));
    for (String s : strategies) figures.put(s, new Figures("advised, strategy " + s));
    BenchmarkParams params = null;
    for (int round = 1; round <= rounds; round++) {
      for (Map.Entry<String, Figures> variant : figures.entrySet()) {
        String strategy = variant.getKey();
        List<String> jvmArgs = new ArrayList<>(JVM_ARGS);
        if (!strategy.equals(OWN)) jvmArgs.add(agentArg);
        Options options = new OptionsBuilder().parent(cmd)
            .include(Pattern.quote(NextLogDirsBenchmark.class.getName()) + "\\.nextLogDirs$")
            .mode(Mode.AverageTime)
            .timeUnit(TimeUnit.MICROSECONDS)
            .param("strategy", strategy)
            .param("pluginDir", plugins)
            .jvmArgsAppend(jvmArgs.toArray(new String[0]))
            .shouldFailOnError(true)
            .build();
        System.err.println("AgentBench: " + (rounds > 1 ? "round " + round + "/" + rounds + ", "
            : "") + "measuring " + variant.getValue().label);
        Collection<RunResult> results = new Runner(options).run();
        if (results.size() != 1) {
          throw new IllegalStateException("expected one result for " + strategy + ", got "
              + results.size() + " (check the JMH options)");
        }
        RunResult result = results.iterator().next();
        params = result.getParams();
        variant.getValue().add(result);
      }
    }
    String text = format(new ArrayList<>(figures.values()), params, rounds, goal);
    System.out.print(text);
    if (table != null) Files.writeString(Path.of(table), text);
  }

  /** Kafka's version, from kafka-clients' kafka/kafka-version.properties. */
  private static String kafkaVersion() {
    try (InputStream in = AgentBench.class.getClassLoader()
        .getResourceAsStream("kafka/kafka-version.properties")) {
      Properties p = new Properties();
      if (in != null) p.load(in);
      return p.getProperty("version", "(unknown version)").trim();
    } catch (Exception e) {
      return "(unknown version)";
    }
  }

  private static double median(List<Double> values) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    if (v.length == 0) return Double.NaN;
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  /** Per-round ratios of `a` to `b`, element by element. */
  private static List<Double> ratios(List<Double> a, List<Double> b) {
    List<Double> out = new ArrayList<>();
    for (int k = 0; k < a.size(); k++) out.add(a.get(k) / b.get(k));
    return out;
  }

  private static String spread(List<Double> values, List<Double> errors) {
    if (values.size() == 1) {
      return Double.isNaN(errors.get(0)) ? "-" : String.format(Locale.ROOT, "±%.1f", errors.get(0));
    }
    double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    return String.format(Locale.ROOT, "%.0f..%.0f", min, max);
  }

  private static String format(List<Figures> rows, BenchmarkParams params, int rounds,
      double goal) {
    StringBuilder out = new StringBuilder();
    String unit = rows.get(0).unit.replace("us/", "µs/");
    out.append(String.format(Locale.ROOT,
        "LogManager.nextLogDirs(), Kafka %s, %s partitions (%s topics) on %s log dirs;"
            + " JMH average time, %d x %s measured in each of %d fork(s) per variant%s%n",
        kafkaVersion(), params.getParam("partitions"), params.getParam("topics"),
        params.getParam("dirs"), params.getMeasurement().getCount(),
        params.getMeasurement().getTime(), params.getForks() * rounds,
        rounds > 1 ? ", in " + rounds + " rounds taking turns (medians over the rounds)" : ""));
    out.append(String.format(Locale.ROOT, "%-30s %10s %14s %8s %12s %8s%n", "", unit,
        rounds > 1 ? "min..max" : "±99.9%", "ratio", "cpu " + unit, "ratio"));
    Figures own = rows.get(0);
    StringBuilder verdict = new StringBuilder();
    boolean met = true;
    for (Figures row : rows) {
      double ratio = median(ratios(row.scores, own.scores));
      double cpuRatio = median(ratios(row.cpus, own.cpus));
      out.append(String.format(Locale.ROOT, "%-30s %10.1f %14s %7.2fx %12.1f %7.2fx%n",
          row.label, median(row.scores), spread(row.scores, row.errors), ratio,
          median(row.cpus), cpuRatio));
      if (row != own) {
        met &= ratio <= goal;
        verdict.append(verdict.length() == 0 ? "" : ", ")
            .append(row.label.substring(row.label.lastIndexOf(' ') + 1))
            .append(String.format(Locale.ROOT, " %.2fx", ratio));
      }
    }
    out.append("ratio: to Kafka's own");
    if (rounds > 1) out.append(" (median of the rounds' ratios)");
    out.append("; cpu: the JVM's CPU time per call, all threads (waiting for a core does not"
        + " count)\n");
    if (rows.size() > 1 && goal > 0) {
      out.append(String.format(Locale.ROOT, "goal: advised <= %.2fx Kafka's own: %s (%s)%n",
          goal, met ? "met" : "NOT met", verdict));
    }
    return out.toString();
  }
}

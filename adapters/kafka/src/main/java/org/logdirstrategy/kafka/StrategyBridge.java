package org.logdirstrategy.kafka;

/**
 * The native half: the project's strategy library (loader, ABI rules, the slot with its hot swap,
 * the validation timeout and the per-call fallback), reached through JNI. Every ABI rule lives
 * there; nothing here repeats one.
 */
final class StrategyBridge {
  /** Longs per directory in {@link #rank}'s and {@link #placed}'s {@code numbers}. */
  static final int FIELDS = 7;

  static final int TOTAL = 0;
  static final int USABLE = 1;
  static final int RESERVED = 2;
  static final int PARTITIONS = 3;
  static final int TOPIC_PARTITIONS = 4;
  static final int FLAGS = 5;
  static final int RATE = 6;

  /** lds_dir.flags bits, as the ABI header defines them. */
  static final long DIR_CORDONED = 0x1L;
  static final long DIR_SPACE_UNKNOWN = 0x2L;
  static final long DIR_RATE_UNKNOWN = 0x4L;

  /**
   * lds_rank_args.purpose of a placement's rank (LDS_RANK_PLACE in the ABI header): every rank the
   * agent asks for. The bridge takes the header's other purposes too.
   */
  static final int RANK_PLACE = 0;

  /** {@link #placed}: the strategy's placed returned. */
  static final int TOLD = 0;
  /**
   * {@link #rank}: the plugin failed, answered badly or timed out; Kafka's order applies. {@link
   * #placed}: the call timed out or could not start; Kafka's creation goes on regardless.
   */
  static final int FELL_BACK = -1;
  /** {@link #rank}, {@link #placed}: no strategy is loaded. */
  static final int NO_STRATEGY = -2;
  /** {@link #rank}: the strategy found no eligible directory. */
  static final int NO_ELIGIBLE_DIR = -3;
  /** {@link #placed}: the active strategy has no placed (a plugin of ABI 1.0 or 1.1). */
  static final int NOT_TAKEN = -4;

  private StrategyBridge() {}

  /**
   * Loads and validates strategy {@code name} from {@code pluginDir} with {@code options} (key,
   * value, key, value ...), dry-running its rank on the given directories, and publishes it.
   * Returns null once published, or the sentence naming the file and the fault (the previous
   * strategy then stays active).
   */
  static native String load(String pluginDir, String name, String[] options, long validationTimeoutMs,
      String[] paths, long[] numbers);

  /**
   * Ranks {@code paths} (log.dirs order) for one partition with the active strategy, telling it
   * why ({@code purpose}, an LDS_RANK_* value), writing indices into {@code order}. Returns how many
   * were written, or FELL_BACK, NO_STRATEGY or NO_ELIGIBLE_DIR. A call that takes longer than
   * {@code timeoutMs} falls back. {@code scores}, when not null, receives with a ranking each
   * dir's score in the order of {@code paths} (NaN where the plugin gave none; see {@link
   * #scoreName}).
   */
  static native int rank(String topic, int partition, long expectedBytes, String[] paths,
      long[] numbers, int purpose, int[] order, double[] scores, long timeoutMs);

  /**
   * Tells the active strategy that the partition's log was created in the dir at {@code path},
   * whose figures ({@code numbers}, FIELDS longs) count it, on the thread rank runs on and
   * waiting no longer than {@code timeoutMs}. Returns TOLD, FELL_BACK, NO_STRATEGY or NOT_TAKEN.
   */
  static native int placed(String topic, int partition, long expectedBytes, String path,
      long[] numbers, long timeoutMs);

  /** Whether the active strategy has placed: false for none, or one of ABI 1.0 or 1.1. */
  static native boolean takesPlaced();

  /** What the active strategy's scores are ("projected fill"), or "" when it gives none. */
  static native String scoreName();

  /** Active strategy: name, version, generation (0 when none). */
  static native String strategyName();

  static native String strategyVersion();

  static native long generation();

  static native long swaps();

  /**
   * The fallbacks by reason: the plugin failed, its ranking was invalid, it did not answer in
   * time (or was still inside an earlier call).
   */
  static native long[] fallbackReasons();

  static native void setLogLevel(String level);
}

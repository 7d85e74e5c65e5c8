// strategy_bridge.cpp: the JNI side of org.logdirstrategy.kafka.StrategyBridge. Kafka's broker
// ranks its log dirs through the host's own strategy library: LoadedStrategy (the private copy,
// every ABI check, the validation timeout) and StrategySlot (the hot swap, the per-call fallback).
// This file only converts between Java arrays and the ABI's structs; it states no ABI rule.
#include <jni.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "java_log_sink.h"
#include "org_logdirstrategy_kafka_StrategyBridge.h"
#include "rank_worker.h"
#include "strategy/strategy_plugin.h"
#include "strategy/strategy_slot.h"
#include "util/errors.h"
#include "util/logging.h"

namespace lds::kafka {
namespace {

namespace fs = std::filesystem;

// The longs per directory of StrategyBridge.rank's and placed's `numbers`, in StrategyBridge's
// order.
enum Field : int {
  kTotal,
  kUsable,
  kReserved,
  kPartitions,
  kTopicPartitions,
  kFlags,
  kRate,
  kFields
};
constexpr jint kTold = 0;       // placed: the strategy's placed returned
constexpr jint kFellBack = -1;  // rank: Kafka's order applies; placed: the call was given up on
constexpr jint kNoStrategy = -2;
constexpr jint kNoEligibleDir = -3;
constexpr jint kNotTaken = -4;  // placed: the active strategy has no placed (ABI 1.0 or 1.1)

// The process's one slot and worker. Never destroyed: at JVM exit a rank call may still be inside
// a plugin, and unloading its library underneath it would crash the exit.
struct Bridge {
  StrategySlot slot;
  RankWorker worker;
  std::atomic<uint64_t> unanswered{0};  // rank and placed calls given up on or never started
};
Bridge& bridge() {
  static Bridge* const instance = new Bridge();
  return *instance;
}

std::string utf(JNIEnv* env, jstring text) {
  if (text == nullptr) return {};
  const char* chars = env->GetStringUTFChars(text, nullptr);
  if (chars == nullptr) return {};
  std::string out(chars);
  env->ReleaseStringUTFChars(text, chars);
  return out;
}

jstring java(JNIEnv* env, const std::string& text) { return env->NewStringUTF(text.c_str()); }

// The candidate directories of one call, owning the path strings the lds_dir entries point into.
struct Candidates {
  std::vector<std::string> paths;
  std::vector<lds_dir> dirs;
};

// One directory from its path and its kFields longs.
lds_dir dir_from(const jlong* v, const char* path) {
  auto u64 = [](jlong x) { return x < 0 ? uint64_t{0} : static_cast<uint64_t>(x); };
  auto u32 = [](jlong x) {
    return x < 0 ? 0u : x > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(x);
  };
  return lds_dir{.struct_size = sizeof(lds_dir),
                 .flags = u32(v[kFlags]),
                 .path = path,
                 .total_bytes = u64(v[kTotal]),
                 .usable_bytes = u64(v[kUsable]),
                 .reserved_bytes = u64(v[kReserved]),
                 .partition_count = u32(v[kPartitions]),
                 .topic_partition_count = u32(v[kTopicPartitions]),
                 .bytes_in_per_sec = u64(v[kRate])};
}

// Reads paths[i] and numbers[i * kFields ...] into lds_dir entries; false when the arrays disagree.
bool read_candidates(JNIEnv* env, jobjectArray paths, jlongArray numbers, Candidates& out) {
  const jsize n = paths == nullptr ? 0 : env->GetArrayLength(paths);
  if (n > 0 && (numbers == nullptr || env->GetArrayLength(numbers) != n * kFields)) return false;
  out.paths.resize(static_cast<size_t>(n));
  for (jsize i = 0; i < n; ++i) {
    auto path = static_cast<jstring>(env->GetObjectArrayElement(paths, i));
    out.paths[static_cast<size_t>(i)] = utf(env, path);
    env->DeleteLocalRef(path);
  }
  std::vector<jlong> values(static_cast<size_t>(n) * kFields);
  if (n > 0) env->GetLongArrayRegion(numbers, 0, n * kFields, values.data());
  out.dirs.resize(static_cast<size_t>(n));
  for (size_t i = 0; i < out.dirs.size(); ++i) {
    out.dirs[i] = dir_from(values.data() + i * kFields, out.paths[i].c_str());
  }
  return true;
}

lds_request request_for(const std::string& topic, jint partition, jlong expected_bytes) {
  return lds_request{
      .struct_size = sizeof(lds_request),
      .partition = partition,
      .topic = topic.c_str(),
      .expected_bytes = expected_bytes < 0 ? 0 : static_cast<uint64_t>(expected_bytes),
      .expected_bytes_in_per_sec = 0};
}

// One rank call's inputs and results, owned jointly by the caller and the worker so that a call
// given up on still writes into live memory.
struct RankJob {
  std::string topic;
  Candidates candidates;
  lds_request request{};
  std::vector<uint32_t> order;
  std::vector<double> scores;
  RankOutcome outcome;
};

// One placed call's inputs, shared with the worker in the same way.
struct PlacedJob {
  std::string topic;
  std::string path;
  lds_request request{};
  lds_dir dir{};
};

}  // namespace
}  // namespace lds::kafka

using lds::kafka::bridge;

extern "C" {

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void*) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
  jclass local = env->FindClass("org/logdirstrategy/kafka/AgentLog");
  if (local == nullptr) return JNI_ERR;
  auto agent_log = static_cast<jclass>(env->NewGlobalRef(local));
  env->DeleteLocalRef(local);
  jmethodID from_native =
      env->GetStaticMethodID(agent_log, "fromNative", "(ILjava/lang/String;Ljava/lang/String;)V");
  if (from_native == nullptr) return JNI_ERR;
  lds::set_log_sink(std::make_shared<lds::kafka::JavaLogSink>(vm, agent_log, from_native));
  return JNI_VERSION_1_8;
}

JNIEXPORT jstring JNICALL Java_org_logdirstrategy_kafka_StrategyBridge_load(
    JNIEnv* env, jclass, jstring plugin_dir, jstring name, jobjectArray options,
    jlong validation_timeout_ms, jobjectArray paths, jlongArray numbers) {
  using namespace lds;
  using namespace lds::kafka;
  if (name == nullptr) {
    bridge().slot.publish(nullptr);
    return nullptr;
  }
  try {
    StrategyLoadSpec spec;
    const std::string dir = utf(env, plugin_dir);
    std::error_code ec;
    spec.plugin_dir = fs::canonical(dir, ec);
    if (ec) {
      return java(
          env, "log.directory.select.plugin.dir " + dir + " cannot be used: " + ec.message() + ".");
    }
    spec.name = utf(env, name);
    const jsize n = options == nullptr ? 0 : env->GetArrayLength(options);
    for (jsize i = 0; i + 1 < n; i += 2) {
      auto key = static_cast<jstring>(env->GetObjectArrayElement(options, i));
      auto value = static_cast<jstring>(env->GetObjectArrayElement(options, i + 1));
      spec.options.emplace_back(utf(env, key), utf(env, value));
      env->DeleteLocalRef(key);
      env->DeleteLocalRef(value);
    }
    spec.validation_timeout = std::chrono::milliseconds(validation_timeout_ms);
    Candidates dry_run;
    if (!read_candidates(env, paths, numbers, dry_run)) {
      return java(env, "the dry-run directories and their figures disagree in length.");
    }
    spec.dry_run_dirs = dry_run.dirs;
    spec.generation = bridge().slot.next_generation();
    try {
      bridge().slot.publish(LoadedStrategy::load(spec));
    } catch (...) {
      bridge().slot.release_generation(spec.generation);
      throw;
    }
    return nullptr;
  } catch (const std::exception& e) {
    return java(env, e.what());
  }
}

JNIEXPORT jint JNICALL Java_org_logdirstrategy_kafka_StrategyBridge_rank(
    JNIEnv* env, jclass, jstring topic, jint partition, jlong expected_bytes, jobjectArray paths,
    jlongArray numbers, jint purpose, jintArray order, jdoubleArray scores, jlong timeout_ms) {
  using namespace lds;
  using namespace lds::kafka;
  std::shared_ptr<const LoadedStrategy> strategy = bridge().slot.current();
  if (!strategy) return kNoStrategy;
  auto job = std::make_shared<RankJob>();
  job->topic = utf(env, topic);
  if (!read_candidates(env, paths, numbers, job->candidates) ||
      env->GetArrayLength(order) < static_cast<jsize>(job->candidates.dirs.size()) ||
      (scores != nullptr &&
       env->GetArrayLength(scores) < static_cast<jsize>(job->candidates.dirs.size()))) {
    logger("lds.placement")
        ->error("rank called with arrays of different lengths; using Kafka's order.");
    return kFellBack;
  }
  if (purpose < static_cast<jint>(LDS_RANK_PLACE) || purpose > static_cast<jint>(LDS_RANK_MOVE)) {
    logger("lds.placement")->error("rank called with purpose {}; using Kafka's order.", purpose);
    return kFellBack;
  }
  job->request = request_for(job->topic, partition, expected_bytes);
  job->order.resize(job->candidates.dirs.size());
  if (scores != nullptr) job->scores.resize(job->candidates.dirs.size());
  const auto timeout = std::chrono::milliseconds(timeout_ms);
  const RankWorker::Outcome outcome = bridge().worker.run(
      strategy->generation(), timeout, [job, strategy, purpose = static_cast<uint32_t>(purpose)] {
        job->outcome = bridge().slot.rank(strategy, job->request, job->candidates.dirs, job->order,
                                          purpose, std::span<double>(job->scores));
      });
  if (outcome != RankWorker::Outcome::kReturned) {
    bridge().unanswered.fetch_add(1, std::memory_order_relaxed);
    strategy->count_fallback();
    logger("lds.placement")
        ->warn("Strategy {} (generation {}) {} for {}-{}; using Kafka's own order.",
               strategy->name(), strategy->generation(),
               outcome == RankWorker::Outcome::kTimedOut
                   ? "did not answer within " + std::to_string(timeout_ms) + " ms"
                   : "is still inside an earlier call",
               job->topic, partition);
    return kFellBack;
  }
  const RankOutcome& result = job->outcome;
  if (result.fell_back) return kFellBack;  // the slot logged and counted it
  if (result.status != LDS_OK) return kNoEligibleDir;
  std::vector<jint> indices(job->order.begin(), job->order.begin() + result.order_len);
  env->SetIntArrayRegion(order, 0, static_cast<jsize>(indices.size()), indices.data());
  if (scores != nullptr && !job->scores.empty()) {
    env->SetDoubleArrayRegion(scores, 0, static_cast<jsize>(job->scores.size()),
                              job->scores.data());
  }
  return static_cast<jint>(result.order_len);
}

JNIEXPORT jint JNICALL Java_org_logdirstrategy_kafka_StrategyBridge_placed(
    JNIEnv* env, jclass, jstring topic, jint partition, jlong expected_bytes, jstring path,
    jlongArray numbers, jlong timeout_ms) {
  using namespace lds;
  using namespace lds::kafka;
  std::shared_ptr<const LoadedStrategy> strategy = bridge().slot.current();
  if (!strategy) return kNoStrategy;
  if (!strategy->has_placed()) return kNotTaken;
  auto job = std::make_shared<PlacedJob>();
  job->topic = utf(env, topic);
  job->path = utf(env, path);
  if (numbers == nullptr || env->GetArrayLength(numbers) != kFields) {
    logger("lds.placement")
        ->error(
            "placed called for {}-{} without one directory's figures; the strategy is not "
            "told where it went.",
            job->topic, partition);
    return kFellBack;
  }
  jlong values[kFields];
  env->GetLongArrayRegion(numbers, 0, kFields, values);
  job->dir = dir_from(values, job->path.c_str());
  job->request = request_for(job->topic, partition, expected_bytes);
  const RankWorker::Outcome outcome =
      bridge().worker.run(strategy->generation(), std::chrono::milliseconds(timeout_ms),
                          [job, strategy] { strategy->placed(job->request, job->dir); });
  if (outcome != RankWorker::Outcome::kReturned) {
    bridge().unanswered.fetch_add(1, std::memory_order_relaxed);
    if (outcome == RankWorker::Outcome::kTimedOut) {
      logger("lds.placement")
          ->warn(
              "Strategy {} (generation {}) did not return from placed within {} ms for {}-{} "
              "in {}; the log stays where Kafka created it.",
              strategy->name(), strategy->generation(), timeout_ms, job->topic, partition,
              job->path);
    } else {
      logger("lds.placement")
          ->warn(
              "Strategy {} (generation {}) is still inside an earlier call; it is not told "
              "that {}-{} was created in {}.",
              strategy->name(), strategy->generation(), job->topic, partition, job->path);
    }
    return kFellBack;
  }
  return kTold;
}

JNIEXPORT jboolean JNICALL Java_org_logdirstrategy_kafka_StrategyBridge_takesPlaced(JNIEnv*,
                                                                                    jclass) {
  auto s = bridge().slot.current();
  return s && s->has_placed() ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jstring JNICALL Java_org_logdirstrategy_kafka_StrategyBridge_scoreName(JNIEnv* env,
                                                                                 jclass) {
  auto s = bridge().slot.current();
  return lds::kafka::java(env, s ? s->score_name() : "");
}

JNIEXPORT jstring JNICALL Java_org_logdirstrategy_kafka_StrategyBridge_strategyName(JNIEnv* env,
                                                                                    jclass) {
  auto s = bridge().slot.current();
  return lds::kafka::java(env, s ? s->name() : "");
}

JNIEXPORT jstring JNICALL Java_org_logdirstrategy_kafka_StrategyBridge_strategyVersion(JNIEnv* env,
                                                                                       jclass) {
  auto s = bridge().slot.current();
  return lds::kafka::java(env, s ? s->version() : "");
}

JNIEXPORT jlong JNICALL Java_org_logdirstrategy_kafka_StrategyBridge_generation(JNIEnv*, jclass) {
  auto s = bridge().slot.current();
  return s ? static_cast<jlong>(s->generation()) : 0;
}

JNIEXPORT jlong JNICALL Java_org_logdirstrategy_kafka_StrategyBridge_swaps(JNIEnv*, jclass) {
  return static_cast<jlong>(bridge().slot.swaps());
}

JNIEXPORT jlongArray JNICALL
Java_org_logdirstrategy_kafka_StrategyBridge_fallbackReasons(JNIEnv* env, jclass) {
  const lds::StrategySlot::FallbackReasons reasons = bridge().slot.fallback_reasons();
  const std::array<jlong, 3> counts = {
      static_cast<jlong>(reasons.plugin_error), static_cast<jlong>(reasons.invalid_ranking),
      static_cast<jlong>(bridge().unanswered.load(std::memory_order_relaxed))};
  jlongArray out = env->NewLongArray(static_cast<jsize>(counts.size()));
  if (out != nullptr)
    env->SetLongArrayRegion(out, 0, static_cast<jsize>(counts.size()), counts.data());
  return out;
}

JNIEXPORT void JNICALL Java_org_logdirstrategy_kafka_StrategyBridge_setLogLevel(JNIEnv* env, jclass,
                                                                                jstring level) {
  lds::set_log_level(lds::kafka::utf(env, level));
}

}  // extern "C"

// java_log_sink.h: the host library's log lines, handed to the agent's SLF4J logger in the JVM.
#pragma once

#include <jni.h>
#include <spdlog/details/null_mutex.h>
#include <spdlog/sinks/base_sink.h>

namespace lds::kafka {

// Calls AgentLog.fromNative(level, logger name, message) for every line. Any thread may log: one
// the JVM does not know (a plugin's validation thread, the rank worker) is attached as a daemon.
// Unformatted: SLF4J's layout adds time and level. No lock is held while Java runs.
class JavaLogSink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 public:
  // `agent_log` is a global reference to org.logdirstrategy.kafka.AgentLog.
  JavaLogSink(JavaVM* vm, jclass agent_log, jmethodID from_native)
      : vm_(vm), agent_log_(agent_log), from_native_(from_native) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override {}

 private:
  JavaVM* vm_;
  jclass agent_log_;
  jmethodID from_native_;
};

}  // namespace lds::kafka

// java_log_sink.cpp: hands each line to AgentLog.fromNative.
#include "java_log_sink.h"

#include <string>
#include <string_view>

namespace lds::kafka {
namespace {

// JNI strings are built from UTF-16 so that a plugin's arbitrary bytes can never make an invalid
// modified-UTF-8 string: ASCII passes, anything else becomes '?'.
jstring to_java(JNIEnv* env, std::string_view text) {
  std::u16string wide;
  wide.reserve(text.size());
  for (unsigned char c : text) wide.push_back(c >= 0x20 && c < 0x7f ? c : u'?');
  return env->NewString(reinterpret_cast<const jchar*>(wide.data()),
                        static_cast<jsize>(wide.size()));
}

// Detaches a thread the sink attached when it exits: the JVM keeps every attached thread listed
// until then.
struct AttachedThread {
  JavaVM* vm = nullptr;
  ~AttachedThread() {
    if (vm != nullptr) vm->DetachCurrentThread();
  }
};
thread_local AttachedThread attached;

}  // namespace

void JavaLogSink::sink_it_(const spdlog::details::log_msg& msg) {
  JNIEnv* env = nullptr;
  if (vm_->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) != JNI_OK) {
    if (vm_->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(&env), nullptr) != JNI_OK) {
      return;
    }
    attached.vm = vm_;
  }
  jstring name = to_java(env, std::string_view(msg.logger_name.data(), msg.logger_name.size()));
  jstring text = to_java(env, std::string_view(msg.payload.data(), msg.payload.size()));
  if (name != nullptr && text != nullptr) {
    env->CallStaticVoidMethod(agent_log_, from_native_, static_cast<jint>(msg.level), name, text);
  }
  if (env->ExceptionCheck()) env->ExceptionClear();
  // A native thread never returns to Java, so its local references must be freed by hand.
  if (name != nullptr) env->DeleteLocalRef(name);
  if (text != nullptr) env->DeleteLocalRef(text);
}

}  // namespace lds::kafka

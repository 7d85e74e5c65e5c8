// bounded_call.cpp: runs a call on its own thread and abandons the thread when the call overruns.
#include "util/bounded_call.h"

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace lds {

bool call_within(std::chrono::milliseconds timeout, std::function<void()> call) {
  // Shared with the thread, which may outlive this function.
  struct Outcome {
    std::mutex mu;
    std::condition_variable cv;
    bool returned = false;
    std::exception_ptr error;
  };
  auto outcome = std::make_shared<Outcome>();
  std::thread thread([outcome, call = std::move(call)] {
    std::exception_ptr error;
    try {
      call();
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(outcome->mu);
    outcome->returned = true;
    outcome->error = error;
    outcome->cv.notify_all();
  });
  bool returned = false;
  {
    std::unique_lock lock(outcome->mu);
    returned = outcome->cv.wait_for(lock, timeout, [&] { return outcome->returned; });
  }
  if (!returned) {
    thread.detach();
    return false;
  }
  thread.join();
  if (outcome->error) std::rethrow_exception(outcome->error);
  return true;
}

}  // namespace lds

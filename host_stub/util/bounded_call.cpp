// bounded_call.cpp: runs a call on its own thread and abandons the thread when the call overruns.
#include "util/bounded_call.h"

#include <exception>
#include <memory>
#include <thread>

#include "util/mutex.h"

namespace lds {

bool call_within(std::chrono::milliseconds timeout, std::function<void()> call) {
  // Shared with the thread, which may outlive this function.
  struct Outcome {
    Mutex mu;
    CondVar cv;
    bool returned GUARDED_BY(mu) = false;
    std::exception_ptr error GUARDED_BY(mu);
  };
  auto outcome = std::make_shared<Outcome>();
  std::thread thread([outcome, call = std::move(call)] {
    std::exception_ptr error;
    try {
      call();
    } catch (...) {
      error = std::current_exception();
    }
    MutexLock lock(outcome->mu);
    outcome->returned = true;
    outcome->error = error;
    outcome->cv.notify_all();
  });
  bool returned = false;
  {
    MutexLock lock(outcome->mu);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!outcome->returned && outcome->cv.wait_until(outcome->mu, deadline)) {
    }
    returned = outcome->returned;
  }
  if (!returned) {
    thread.detach();
    return false;
  }
  thread.join();
  std::exception_ptr error;
  {
    MutexLock lock(outcome->mu);
    error = outcome->error;
  }
  if (error) std::rethrow_exception(error);
  return true;
}

}  // namespace lds

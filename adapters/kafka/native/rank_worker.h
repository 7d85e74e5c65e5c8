// rank_worker.h: a plugin's rank and placed calls on a thread of their own, waited for no longer
// than a timeout.
//
// Kafka creates logs one at a time under its log creation lock, so a plugin hung in rank or in
// placed would stop every partition creation of the broker. Each call runs on the worker thread
// instead; the caller waits at most its timeout and then goes on without the answer (a rank falls
// back to Kafka's own order). One thread serves every call (a thread per call would cost more than
// the ranking), and a worker given up on is replaced, but only once: while a call of the same
// strategy generation is still stuck, later calls are not started at all, so a plugin that hangs
// on every call costs one thread, not one per placement.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include "util/mutex.h"

namespace lds::kafka {

class RankWorker {
 public:
  enum class Outcome {
    kReturned,    // `call` ran and returned within the timeout
    kTimedOut,    // `call` is still running; it was given up on and must own its state
    kStillStuck,  // an earlier call of this generation has not returned; `call` was not started
  };

  Outcome run(uint64_t generation, std::chrono::milliseconds timeout, std::function<void()> call);

 private:
  struct Worker {
    Mutex mu;
    CondVar cv;
    std::function<void()> task GUARDED_BY(mu);
    bool has_task GUARDED_BY(mu) = false;
    bool task_done GUARDED_BY(mu) = false;
    bool stop GUARDED_BY(mu) = false;  // exit once the current task, if any, returns
  };
  static void loop(std::shared_ptr<Worker> worker);

  Mutex call_mu_;  // one call at a time
  std::shared_ptr<Worker> worker_ GUARDED_BY(call_mu_);
  // Given up on; kept to learn whether its call returned.
  std::shared_ptr<Worker> stuck_ GUARDED_BY(call_mu_);
  uint64_t stuck_generation_ GUARDED_BY(call_mu_) = 0;
};

}  // namespace lds::kafka

// rank_worker.cpp: one worker thread for plugin calls, replaced when a call outlives its timeout.
#include "rank_worker.h"

#include <thread>

namespace lds::kafka {

void RankWorker::loop(std::shared_ptr<Worker> worker) {
  for (;;) {
    std::function<void()> task;
    {
      MutexLock lock(worker->mu);
      while (!worker->has_task && !worker->stop) worker->cv.wait(worker->mu);
      if (!worker->has_task) return;  // stopped, with no task left
      task = std::move(worker->task);
      worker->has_task = false;
    }
    try {
      task();
    } catch (...) {
      // The task reports through its own state; nothing may escape a detached thread.
    }
    MutexLock lock(worker->mu);
    worker->task_done = true;
    worker->cv.notify_all();
    if (worker->stop && !worker->has_task) return;
  }
}

RankWorker::Outcome RankWorker::run(uint64_t generation, std::chrono::milliseconds timeout,
                                    std::function<void()> call) {
  MutexLock call_lock(call_mu_);
  if (stuck_) {
    bool returned;
    {
      MutexLock lock(stuck_->mu);
      returned = stuck_->task_done;
    }
    if (!returned && stuck_generation_ == generation) return Outcome::kStillStuck;
    stuck_.reset();  // it returned (and exits), or belongs to a strategy no longer active
  }
  if (!worker_) {
    worker_ = std::make_shared<Worker>();
    std::thread(loop, worker_).detach();
  }
  std::shared_ptr<Worker> worker = worker_;
  {
    MutexLock lock(worker->mu);
    worker->task = std::move(call);
    worker->has_task = true;
    worker->task_done = false;
    worker->cv.notify_all();
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!worker->task_done && worker->cv.wait_until(worker->mu, deadline)) {
    }
    if (worker->task_done) return Outcome::kReturned;
    worker->stop = true;
  }
  stuck_ = std::move(worker_);
  stuck_generation_ = generation;
  return Outcome::kTimedOut;
}

}  // namespace lds::kafka

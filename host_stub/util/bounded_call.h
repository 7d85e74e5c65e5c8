// bounded_call.h: runs a call that may never return on a thread of its own, and waits for it no
// longer than a timeout.
//
// Code the host does not control (a strategy plugin) may block forever, and a thread cannot be
// cancelled safely. So the call runs on a fresh thread; the caller waits at most `timeout` and then
// gives that thread up. An abandoned thread keeps running: everything `call` touches must stay
// valid until it returns, which is why `call` should own its state (capture by value or by
// shared_ptr) rather than point into the caller's stack.
#pragma once

#include <chrono>
#include <functional>

namespace lds {

// Runs `call` on a new thread. Returns true once it returned within `timeout` (the thread is then
// joined, and an exception `call` threw is rethrown here), false when it is still running at the
// deadline (the thread is detached and left to finish, or not, on its own). Throws
// std::system_error when no thread can be started.
bool call_within(std::chrono::milliseconds timeout, std::function<void()> call);

}  // namespace lds

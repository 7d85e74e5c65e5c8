// sync_point.h: named points in the engine where a test can stop, pause or watch it, for example
// between two steps of a move's commit protocol. They exist only in a build configured with
// LDS_SYNC_POINTS (CMake option, on by default with the tests); in any other build
// LDS_SYNC_POINT("name") compiles to nothing: no call, no symbol, no look at the environment.
//
// Names in use, each reached by the thread that moves a replica (storage/replica_mover.cpp):
//   during_copy             after each range of the copy into the -future directory
//   after_marker            the complete copy holds move.complete; nothing renamed yet
//   after_future_renamed    the marked copy has its final name; the source is still in place
//   before_source_renamed   the same on disk, with the partition now served from the copy
//   after_source_renamed    the source is renamed to -delete; the marker is still in the copy
//   after_marker_removed    the marker is gone; only the -delete directory is left to remove
//
// A callback runs where its point is, under whatever locks the engine holds there (every move point
// but during_copy holds the partition's I/O lock), so it may look at the disks but must not call
// into the engine.
//
// A process started with LDS_CRASH_POINT=<name> kills itself (SIGKILL) at that point, and one
// started with LDS_PAUSE_POINT=<name>:<milliseconds> sleeps there that long: that is how the suites
// that drive a real `lds-host serve` put it between two steps. Both are read once, at the first
// use of any sync point.
#pragma once

#ifdef LDS_SYNC_POINTS

#include <functional>
#include <string>

namespace lds {

// The process-wide table of what runs at each point. All calls are thread-safe.
class SyncPoints {
 public:
  using Callback = std::function<void()>;

  // What LDS_SYNC_POINT calls: runs the callback installed for `name`, if any, on the calling
  // thread, with the table's lock let go, so a callback may block (a pause) or install and clear
  // callbacks itself.
  static void reach(const char* name);

  // Installs `callback` for `name`, in place of whatever was there (an environment action too).
  // An empty callback clears the point.
  static void set_callback(const std::string& name, Callback callback);

  // Removes the callback for `name`; a point without one is a harmless no-op. A call of the old
  // callback already running finishes.
  static void clear_callback(const std::string& name);

  // Removes every callback, the environment's actions included.
  static void clear_all_callbacks();
};

}  // namespace lds

#define LDS_SYNC_POINT(name) ::lds::SyncPoints::reach(name)

#else

#define LDS_SYNC_POINT(name) \
  do {                       \
  } while (0)

#endif

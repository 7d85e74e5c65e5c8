// regressions.cpp: the shrunk schedules of defects found by the torture test (see regressions.h).
#include "regressions.h"

namespace lds::torture {

const std::vector<Regression>& regressions() {
  static const std::vector<Regression> list = {
      // A full disk1, the other dirs cordoned, and a drain: the empty partitions it moved into
      // disk1 failed ("0 B needed, 0 B free"), and the drain planned them again at every tick,
      // so the moves never settled. Fixed: failed moves are blocked until space is freed or the
      // cooldown passes, and the drain waits saying why.
      {"seed 340431315: moves did not settle within 90 s",
       {{Kind::kCreate, 625, 63, 81},
        {Kind::kCreate, 262, 122, 867},
        {Kind::kFillDisk, 321, 985, 51},
        {Kind::kCordon, 934, 46, 893},
        {Kind::kDrain, 257, 660, 220},
        {Kind::kBalancer, 955, 362, 507},
        {Kind::kSettle, 650, 639, 856}},
       ""},
      // Seed 307652601 (a move soon after a restart): "partition t2-2 is in two dirs". Between
      // the rename of the complete copy to its final name and the rename of the source aside,
      // the broker already serves the new copy and both dirs hold the partition's name; the
      // checker took that moment for a duplicate. Recovery resolves it by the move marker, so
      // the checker now waits while a copy holding the marker is being promoted. The pause
      // holds that window open for every move here.
      {"seed 307652601: a promotion in progress read as a partition in two dirs",
       {{Kind::kCreate, 0, 0, 1},
        {Kind::kProduce, 0, 1, 1},
        {Kind::kMove, 0, 1, 1},
        {Kind::kSettle, 0, 0, 0},
        {Kind::kMove, 0, 2, 1},
        {Kind::kSettle, 0, 0, 0},
        {Kind::kMove, 0, 0, 1},
        {Kind::kSettle, 0, 0, 0}},
       "before_source_renamed:1500"},
      // Full disks and a creation: mkdir and the empty first segment fit in a full tmpfs, the
      // partition's lds.partition (its expected size) does not, and that ENOSPC took the log
      // dir offline. Fixed: the creation is refused, saying the filesystem is full, and the dir
      // stays online (reliability_disks_test.cpp has the sentence).
      {"full disks: writing a new partition's lds.partition took its dir offline",
       {{Kind::kFillDisk, 0, 0, 0},
        {Kind::kFillDisk, 1, 0, 0},
        {Kind::kFillDisk, 2, 0, 0},
        {Kind::kCreate, 0, 0, 0},
        {Kind::kSettle, 0, 0, 0}},
       ""},
      // Seed 5 of the fixed list: "a move was still being promoted, its marker in
      // disk1/logs/t1-0". The move's source disk was remounted read-only between the complete
      // copy's rename to its final name and the source's rename aside: that rename failed, the
      // source dir went offline, and the marker stayed in the new copy, as it must, until the
      // restart that finds the old copy again. The checker took that for a promotion that never
      // ended; it now accepts a marker whose source is on a dir the schedule broke. The pause,
      // once the marker is written and while the copy is still a future (so the step's check does
      // not wait for the promotion), lets the remount come first; it holds the disk read-only for
      // 1 s, across both renames. The restart must keep the new copy only.
      {"seed 5: a move whose source disk failed at the rename aside read as a promotion never "
       "ending",
       {{Kind::kCreate, 0, 0, 1},
        {Kind::kProduce, 0, 1, 1},
        {Kind::kMove, 0, 1, 1},
        {Kind::kRemountReadOnly, 0, 0, 4},
        {Kind::kSettle, 0, 0, 0},
        {Kind::kKillRestart, 0, 0, 0},
        {Kind::kSettle, 0, 0, 0}},
       "after_marker:300"},
      // Soak seed 261458486: "partition disk3/logs/t0-1 is on disk but was deleted or never
      // created", after a restart. As in the case above, t0-1's move left its old copy on a
      // read-only disk, its marker in the new copy; then the topic was deleted, which removed the
      // new copy and the marker with it, and the restart served the old copy again: a deleted
      // partition came back with stale data. Fixed: the old copy's deletion is recorded as
      // pending when it cannot be renamed aside, and the next start that finds its directory
      // readable removes it first.
      {"soak seed 261458486: a deleted partition came back from a move's old copy",
       {{Kind::kCreate, 0, 0, 1},
        {Kind::kCreate, 1, 0, 1},
        {Kind::kCreate, 2, 0, 1},
        {Kind::kProduce, 0, 1, 1},
        {Kind::kMove, 0, 1, 1},
        {Kind::kRemountReadOnly, 0, 0, 4},
        {Kind::kDelete, 0, 0, 0},
        {Kind::kKillRestart, 0, 0, 0},
        {Kind::kSettle, 0, 0, 0}},
       "after_marker:300"},
  };
  return list;
}

}  // namespace lds::torture

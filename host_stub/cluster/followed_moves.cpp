// followed_moves.cpp: what each read of a broker says became of the moves followed there.
#include "cluster/followed_moves.h"

#include <algorithm>

namespace lds::cluster {

FollowedMoves::Seen FollowedMoves::note(const BrokerView& v, int64_t now_ms) {
  Seen seen;
  for (auto it = moves_.begin(); it != moves_.end();) {
    const TopicPartition& tp = it->first;
    Move& m = it->second;
    if (v.futures.count(tp) > 0) {
      m.unconfirmed = false;
      ++it;
      continue;
    }
    Ended e{tp, m, Outcome::kGone, 0, 0, {}};
    const BalancePartition* p = v.model.find(tp);
    const int to = v.dir_index(m.to_path);
    if (p != nullptr && to >= 0 && p->dir == static_cast<uint32_t>(to)) {
      e.outcome = Outcome::kMoved;
      e.size = p->size;
      e.copied = p->size - std::min(p->size, m.copied_since);
    } else if (p != nullptr && to >= 0) {
      if (!m.unconfirmed) {  // perhaps read mid-swap: read it again
        m.unconfirmed = true;
        ++it;
        continue;
      }
      e.outcome = Outcome::kShort;
      e.size = p->size;
      e.at = v.model.dirs[p->dir].path;
    }
    seen.ended.push_back(std::move(e));
    it = moves_.erase(it);
  }
  for (const auto& [tp, f] : v.futures) {
    if (moves_.count(tp) > 0) continue;
    Move m{v.model.dirs[f.from].path, v.model.dirs[f.to].path, now_ms, f.copied, false};
    moves_[tp] = m;
    seen.adopted.push_back({tp, std::move(m), f});
  }
  return seen;
}

void FollowedMoves::start(const TopicPartition& tp, Move m) { moves_[tp] = std::move(m); }

size_t FollowedMoves::unconfirmed() const {
  return static_cast<size_t>(std::count_if(moves_.begin(), moves_.end(),
                                           [](const auto& e) { return e.second.unconfirmed; }));
}

}  // namespace lds::cluster

// regressions.h: shrunk schedules of defects the torture test found, each replayed by
// `lds-torture --regressions` so the defect stays fixed.
#pragma once

#include <string>
#include <vector>

#include "schedule.h"

namespace lds::torture {

struct Regression {
  std::string name;  // what the schedule broke
  std::vector<Step> steps;
  // LDS_PAUSE_POINT for the broker while it runs ("<point>:<ms>", see util/sync_point.h),
  // to hold open a window that the seed met only by chance; empty = none.
  std::string pause_point;
};

const std::vector<Regression>& regressions();

}  // namespace lds::torture

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
};

const std::vector<Regression>& regressions();

}  // namespace lds::torture

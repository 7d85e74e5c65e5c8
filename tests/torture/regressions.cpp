// regressions.cpp: the shrunk schedules of defects found by the torture test (see regressions.h).
#include "regressions.h"

namespace lds::torture {

const std::vector<Regression>& regressions() {
  static const std::vector<Regression> list = {};
  return list;
}

}  // namespace lds::torture

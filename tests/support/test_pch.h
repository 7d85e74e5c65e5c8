// test_pch.h: the headers nearly every suite includes, precompiled once for all of them
// (tests/CMakeLists.txt, lds_test_pch). A suite still includes what it uses itself: this file only
// makes those includes cheap.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

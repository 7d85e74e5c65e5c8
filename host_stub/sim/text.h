// text.h: the number formatting, lists and file writing that the simulator's outputs share.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace lds::sim {

// `v` with exactly `decimals` digits after the point, whatever the locale.
std::string fixed(double v, int decimals);

// `v` with its digits in groups of three, as in "2,000,000,000".
std::string grouped(uint64_t v);

// Appends `item` to a `separator`-separated list.
void append_item(std::string& list, const std::string& item, const char* separator);

// Replaces the file's content. Throws std::runtime_error naming the file when it cannot be written.
void write_file(const std::filesystem::path& path, const std::string& content);

}  // namespace lds::sim

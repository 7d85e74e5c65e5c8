// plugin_search.h: where the simulator finds each variant's liblds_<plugin>.so, so that a build
// tree and an installed lds-host both run without naming a folder.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace lds::sim {

// Where liblds_<plugin>.so files are looked for, in order: `extra` (--plugin-dir), then beside the
// executable: ../plugins and ../baseline_plugins (a build tree) and ../lib/lds/plugins (installed).
std::vector<std::filesystem::path> plugin_search_path(
    const std::vector<std::filesystem::path>& extra);

// The first folder of `search` holding liblds_<plugin>.so. Throws PluginError listing the folders
// tried.
std::filesystem::path find_plugin_dir(const std::string& plugin,
                                      const std::vector<std::filesystem::path>& search);

}  // namespace lds::sim

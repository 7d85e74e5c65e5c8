// plugin_search.cpp: the plugin folders of a simulation, and the one holding a given plugin.
#include "sim/plugin_search.h"

#include <algorithm>
#include <system_error>

#include "sim/text.h"
#include "strategy/abi_rules.h"
#include "util/errors.h"

namespace lds::sim {

namespace fs = std::filesystem;

std::vector<fs::path> plugin_search_path(const std::vector<fs::path>& extra) {
  std::vector<fs::path> out;
  auto add = [&](const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::canonical(p, ec);
    if (!ec && fs::is_directory(c, ec) && std::find(out.begin(), out.end(), c) == out.end()) {
      out.push_back(c);
    }
  };
  for (const fs::path& p : extra) add(p);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path bin = exe.parent_path();
    add(bin / ".." / "plugins");
    add(bin / ".." / "baseline_plugins");
    add(bin / ".." / "lib" / "lds" / "plugins");
  }
  return out;
}

fs::path find_plugin_dir(const std::string& plugin, const std::vector<fs::path>& search) {
  std::string tried;
  for (const fs::path& dir : search) {
    std::error_code ec;
    if (fs::is_regular_file(dir / abi_rules::plugin_file_name(plugin), ec)) return dir;
    append_item(tried, dir.string(), ", ");
  }
  throw PluginError("Strategy plugin liblds_" + plugin + ".so was not found in " +
                    (tried.empty() ? std::string("any plugin folder") : tried) +
                    "; name its folder with --plugin-dir.");
}

}  // namespace lds::sim

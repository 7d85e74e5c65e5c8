// meta_properties.h: a log directory's meta.properties, read as Java reads a .properties file and
// typed as Kafka's versions 0, 1 and 2 (MetaProperties in apache/kafka).
//
// Version 0 (ZooKeeper-era brokers): broker.id and cluster.id, both optional; a file without a
// version line is version 0. Version 1 (KRaft): node.id and cluster.id required. Version 2:
// node.id and directory.id required. directory.id is optional in 0 and 1. KRaft's node.id is read
// beside broker.id in every version; when both are present they must agree. A file with neither a
// version line nor an id is refused: Kafka never writes one, and garbage reads as one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace lds {

// The key/value pairs of a Java .properties text (java.util.Properties.load): `key=value`,
// `key = value`, `key: value` and `key value`; leading whitespace skipped; lines whose first
// non-blank character is `#` or `!` are comments; LF, CR and CRLF line ends; a line ending in an
// odd number of backslashes continues on the next (whose leading whitespace is skipped); escapes
// \t \n \r \f \\ \uXXXX, and a backslash before any other character stands for that character.
// A later key wins over an earlier one. Throws ConfigError "<file>:<line>: <fault>." for a
// malformed \uXXXX escape, the one error Java reports.
std::map<std::string, std::string> parse_java_properties(std::string_view text,
                                                         const std::filesystem::path& file);

struct MetaProperties {
  int version = 0;
  std::optional<int32_t> node_id;  // node.id, or broker.id in a version 0 file
  std::optional<std::string> cluster_id;
  std::optional<std::string> directory_id;
  // A version 1 file with broker.id and neither node.id nor cluster.id, as lds-host 0.1 wrote.
  bool written_by_lds_host_0_1 = false;

  bool operator==(const MetaProperties&) const = default;
};

// The typed view of `props`, read from `file` (named in errors). Throws ConfigError
// "<file>: <fault>." for a file with no version, node.id or broker.id line (not Kafka's), an
// unknown or non-integer version, a non-integer id, a version 1 or 2
// file without node.id (except lds-host 0.1's own version 1 file: broker.id, no cluster.id), a
// version 1 file without cluster.id, a version 2 file without directory.id, broker.id and node.id
// that disagree, or a directory.id that is not a Kafka Uuid.
MetaProperties meta_properties_of(const std::map<std::string, std::string>& props,
                                  const std::filesystem::path& file);

// Reads and types `file`; nullopt when it does not exist. Throws ConfigError naming the file for
// a file that cannot be read and for every fault meta_properties_of() reports.
std::optional<MetaProperties> read_meta_properties(const std::filesystem::path& file);

// The text Kafka writes for a new log directory: version 1, node.id, cluster.id, directory.id.
std::string meta_properties_text(int32_t node_id, std::string_view cluster_id,
                                 std::string_view directory_id);

// Kafka's sentence for a stored id that is not this broker's (MetaPropertiesEnsemble.verify).
std::string node_id_mismatch(int32_t stored, int32_t configured, const std::filesystem::path& file);

// Kafka's sentence for a stored cluster.id that is not the one expected
// (MetaPropertiesEnsemble.verify): "Invalid cluster.id in: <file>. Expected <expected>, but read
// <stored>".
std::string cluster_id_mismatch(const std::filesystem::path& file, std::string_view expected,
                                std::string_view stored);

// A directory.id for a directory whose meta.properties has none: the same for the same path on
// every start, in Kafka's Uuid form, never starting with '-' and never one of Kafka's reserved ids.
std::string directory_id_for_path(const std::filesystem::path& dir);

}  // namespace lds

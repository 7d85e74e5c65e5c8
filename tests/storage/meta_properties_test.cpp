// meta_properties_test.cpp: meta.properties read as Java reads .properties files and typed as
// Kafka's versions 0, 1 and 2; every malformed case refused with a sentence naming the file.
#include "storage/meta_properties.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "io/log_layout.h"
#include "model/uuid.h"
#include "temp_dir.h"
#include "util/errors.h"

namespace lds {
namespace {

namespace fs = std::filesystem;
using Props = std::map<std::string, std::string>;

const fs::path kFile = "/data/d1/meta.properties";

Props parse(const std::string& text) { return parse_java_properties(text, kFile); }

std::string error_of(const Props& props) {
  try {
    meta_properties_of(props, kFile);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(JavaProperties, ReadsEverySeparatorForm) {
  EXPECT_EQ(
      parse("a=1\nb = 2\nc: 3\nd 4\ne\t=\t5\nf:=6\ng\n"),
      (Props{{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}, {"e", "5"}, {"f", "=6"}, {"g", ""}}));
}

TEST(JavaProperties, SkipsLeadingWhitespaceCommentsAndBlankLines) {
  EXPECT_EQ(parse("  # a comment\n\t! another = comment\n\n   \n   broker.id = 5\n#x=1\n"),
            (Props{{"broker.id", "5"}}));
}

TEST(JavaProperties, KeepsTrailingWhitespaceOfAValueAsJavaDoes) {
  EXPECT_EQ(parse("a = 1  \n"), (Props{{"a", "1  "}}));
}

TEST(JavaProperties, AcceptsCrlfAndLoneCrLineEnds) {
  EXPECT_EQ(
      parse("version=1\r\nnode.id=3\r\n\r\ncluster.id=x\rdirectory.id=y"),
      (Props{{"version", "1"}, {"node.id", "3"}, {"cluster.id", "x"}, {"directory.id", "y"}}));
}

TEST(JavaProperties, JoinsContinuedLinesAndSkipsTheirLeadingWhitespace) {
  EXPECT_EQ(parse("a = one, \\\n     two\r\nb = x\\\\\nc = y\\\r\n  z\nd = end\\"),
            (Props{{"a", "one, two"}, {"b", "x\\"}, {"c", "yz"}, {"d", "end"}}));
}

TEST(JavaProperties, ACommentLineIsNeverContinued) {
  EXPECT_EQ(parse("# comment \\\na = 1\n"), (Props{{"a", "1"}}));
}

TEST(JavaProperties, ResolvesTheStandardEscapes) {
  EXPECT_EQ(parse("k\\ ey\\=x = a\\tb\\nc\\rd\\\\e\\u0041\\u00e9\\q\n"),
            (Props{{"k ey=x", "a\tb\nc\rd\\eA\xC3\xA9q"}}));
  EXPECT_EQ(parse("a=\\uD83D\\uDE00\n"), (Props{{"a", "\xF0\x9F\x98\x80"}}));
}

TEST(JavaProperties, ALaterKeyWins) { EXPECT_EQ(parse("a=1\na=2\n"), (Props{{"a", "2"}})); }

TEST(JavaProperties, AMalformedUnicodeEscapeNamesTheFileAndLine) {
  try {
    parse("a=1\n\nb=\\u12G4\n");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), kFile.string() + ":3: Malformed \\uxxxx encoding.");
  }
}

TEST(MetaProperties, ReadsAVersion0FileAsKafkaWritesIt) {
  MetaProperties m = meta_properties_of(
      parse("#\n#Tue Nov 04 10:00:00 UTC 2025\nversion=0\nbroker.id=3\n"), kFile);
  EXPECT_EQ(m.version, 0);
  EXPECT_EQ(m.node_id, 3);
  EXPECT_FALSE(m.cluster_id);
  EXPECT_FALSE(m.directory_id);

  m = meta_properties_of(
      parse("#\n#Tue Nov 04 10:00:00 UTC 2025\ncluster.id=AAAAAAAAAAAAAAAAAAAAAA\n"
            "version=0\nbroker.id=1\n"),
      kFile);
  EXPECT_EQ(m.cluster_id, "AAAAAAAAAAAAAAAAAAAAAA");
}

TEST(MetaProperties, AFileWithoutAVersionLineIsVersion0AsInKafka) {
  MetaProperties m = meta_properties_of(parse("broker.id = 5\n"), kFile);
  EXPECT_EQ(m.version, 0);
  EXPECT_EQ(m.node_id, 5);
  EXPECT_FALSE(meta_properties_of(parse("cluster.id=c\nversion=0\n"), kFile).node_id);
}

// Kafka never writes a file without both a version line and an id; garbage bytes read as keys
// that are neither, and such a file says nothing about whose the directory is.
TEST(MetaProperties, AFileWithNeitherAVersionNorAnIdIsRefusedNamingIt) {
  const std::string refusal = kFile.string() +
                              ": No version, node.id or broker.id line is found, so this is not "
                              "a meta.properties Kafka writes; restore the directory's own file, "
                              "or remove it to have a new one written, and start again.";
  const char raw[] = "\x7f\x45\x4c\x46\x02\x01 \xde\xad\xbe\xef=\x00\x13\n\xff\xfe:x\n";
  const std::string garbage(raw, sizeof raw - 1);
  EXPECT_EQ(error_of(parse(garbage)), refusal);
  EXPECT_EQ(error_of(parse("")), refusal);
  EXPECT_EQ(error_of(parse("# nothing else\n")), refusal);
  EXPECT_EQ(error_of(parse("cluster.id=MkU3OEVBNTcwNTJENDM2Qk\n")), refusal);
}

TEST(MetaProperties, ReadsAVersion1FileAsKafkaWritesIt) {
  const std::string text =
      "#\n#Tue Nov 04 10:00:00 UTC 2025\nnode.id=1\ndirectory.id=J8aAPcfLQt2bqs1JT_rMgQ\n"
      "version=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\n";
  MetaProperties m = meta_properties_of(parse(text), kFile);
  EXPECT_EQ(m.version, 1);
  EXPECT_EQ(m.node_id, 1);
  EXPECT_EQ(m.cluster_id, "MkU3OEVBNTcwNTJENDM2Qk");
  EXPECT_EQ(m.directory_id, "J8aAPcfLQt2bqs1JT_rMgQ");
}

// lds-host 0.1 wrote version=1 with broker.id; an upgraded broker starts on its dirs unchanged.
TEST(MetaProperties, ReadsTheVersion1FileLdsHost01Wrote) {
  const std::string text =
      "#Written by lds-host; Kafka's log directory metadata.\n"
      "version=1\nbroker.id=3\ndirectory.id=J8aAPcfLQt2bqs1JT_rMgQ\n";
  MetaProperties m = meta_properties_of(parse(text), kFile);
  EXPECT_TRUE(m.written_by_lds_host_0_1);
  EXPECT_EQ(m.version, 1);
  EXPECT_EQ(m.node_id, 3);
  EXPECT_FALSE(m.cluster_id);
  EXPECT_EQ(m.directory_id, "J8aAPcfLQt2bqs1JT_rMgQ");
  EXPECT_FALSE(meta_properties_of(parse("version=1\nnode.id=1\ncluster.id=c\n"), kFile)
                   .written_by_lds_host_0_1);
}

TEST(MetaProperties, ReadsNodeIdBesideBrokerId) {
  EXPECT_EQ(meta_properties_of(parse("version=0\nnode.id=4\n"), kFile).node_id, 4);
  EXPECT_EQ(meta_properties_of(parse("broker.id=4\nnode.id=4\n"), kFile).node_id, 4);
  EXPECT_EQ(error_of(parse("broker.id=4\nnode.id=5\n")),
            kFile.string() + ": broker.id 4 and node.id 5 disagree; they name the same node.");
}

TEST(MetaProperties, NamesTheFileAndTheFaultOfEveryMalformedFile) {
  const std::string at = kFile.string() + ": ";
  EXPECT_EQ(error_of(parse("version=one\n")),
            at + "Invalid meta.properties version string \"one\".");
  EXPECT_EQ(error_of(parse("version=3\nnode.id=1\n")),
            at + "Unknown meta.properties version number 3; Kafka writes version 0, 1 or 2.");
  EXPECT_EQ(error_of(parse("broker.id = five\n")),
            at + "Unable to read broker.id as a base-10 number: \"five\".");
  EXPECT_EQ(error_of(parse("broker.id = 5 \n")),
            at + "Unable to read broker.id as a base-10 number: \"5 \".");
  EXPECT_EQ(error_of(parse("version=1\nnode.id=99999999999\ncluster.id=c\n")),
            at + "Unable to read node.id as a base-10 number: \"99999999999\".");
  EXPECT_EQ(error_of(parse("version=1\ncluster.id=c\n")),
            at + "node.id was not specified in this version 1 file.");
  EXPECT_EQ(error_of(parse("version=1\nbroker.id=0\ncluster.id=c\n")),
            at + "node.id was not specified in this version 1 file (version 1 and later name the "
                 "node node.id, not broker.id).");
  EXPECT_EQ(error_of(parse("version=1\nnode.id=0\n")),
            at + "cluster.id was not specified in this version 1 file.");
  EXPECT_EQ(error_of(parse("version=2\nnode.id=0\n")),
            at + "directory.id was not specified in this version 2 file.");
  EXPECT_EQ(error_of(parse("broker.id=0\ndirectory.id=abc\n")),
            at +
                "Unable to read directory.id as a Uuid: \"abc\" is 3 characters long; a Uuid is 22 "
                "characters of URL-safe base64.");
  EXPECT_EQ(error_of(parse("broker.id=0\ndirectory.id=J8aAPcfLQt2bqs1JT/rMgQ\n")),
            at + "Unable to read directory.id as a Uuid: \"J8aAPcfLQt2bqs1JT/rMgQ\" has \"/\" at "
                 "position 18, outside URL-safe base64.");
}

TEST(MetaProperties, AnUnreadableFileIsNamed) {
  test::TempDir tmp;
  const fs::path file = tmp.path() / "meta.properties";
  EXPECT_FALSE(read_meta_properties(file)) << "a missing file is a new directory";
  fs::create_directory(file);
  try {
    read_meta_properties(file);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              file.string() + ": cannot read the log directory's meta.properties: Is a directory.");
  }
}

TEST(MetaProperties, WritesKafkasVersion1FileThatReadsBackTheSame) {
  const std::string id = layout::random_directory_id();
  const std::string text = meta_properties_text(7, "MkU3OEVBNTcwNTJENDM2Qk", id);
  EXPECT_NE(text.find("\nversion=1\n"), std::string::npos) << text;
  MetaProperties m = meta_properties_of(parse(text), kFile);
  EXPECT_EQ(m, (MetaProperties{1, 7, "MkU3OEVBNTcwNTJENDM2Qk", id}));
}

// Properties.store's escapes: a backslash doubled, a leading blank escaped, \t \n \r \f by name
// and any other control character as \uXXXX; read back, the value is the one written.
TEST(MetaProperties, EscapesAValueAsJavaStoresItAndReadsItBack) {
  const std::string id = layout::random_directory_id();
  const std::string cluster = std::string(" a\\b\tc\nd") + '\x01' + "e\x7F";
  const std::string text = meta_properties_text(7, cluster, id);
  EXPECT_NE(text.find("\ncluster.id=\\ a\\\\b\\tc\\nd\\u0001e\\u007F\n"), std::string::npos)
      << text;
  EXPECT_EQ(parse(text).at("cluster.id"), cluster);
}

TEST(MetaProperties, TheMismatchSentenceIsKafkas) {
  EXPECT_EQ(node_id_mismatch(5, 0, kFile),
            "Stored node id 5 doesn't match previous node id 0 in " + kFile.string() +
                ". If you moved your data, make sure your configured node id matches. If you "
                "intend to create a new node, you should remove all data in your data "
                "directories.");
}

// Uuid.fromString (apache/kafka clients/src/main/java/org/apache/kafka/common/Uuid.java): at most
// 24 characters, Base64.getUrlDecoder, exactly 16 bytes.
TEST(MetaProperties, UuidStringsFollowUuidFromString) {
  EXPECT_EQ(uuid_string_problem("MkU3OEVBNTcwNTJENDM2Qk"), "");
  EXPECT_EQ(uuid_string_problem("MkU3OEVBNTcwNTJENDM2Qk=="), "");  // the decoder takes padding
  EXPECT_EQ(uuid_string_problem(layout::random_directory_id()), "");
  EXPECT_EQ(uuid_string_problem("MkU3OEVBNTcwNTJENDM2Qk="), "its padding is not base64's");
  EXPECT_EQ(uuid_string_problem("MkU3OEVBNTcwNTJENDM2QkAAA"),
            "longer than the 24 characters of a base64 Uuid");
  EXPECT_EQ(uuid_string_problem("abc"), "it decodes to 2 bytes, not 16");
  EXPECT_EQ(uuid_string_problem(""), "it decodes to 0 bytes, not 16");
  EXPECT_EQ(uuid_string_problem("MkU3OEVBNTcwNTJENDM2QkAA"), "it decodes to 18 bytes, not 16");
  EXPECT_EQ(uuid_string_problem("J8aAPcfLQt2bqs1JT+rMgQ"),
            "\"+\" at position 18 is outside URL-safe base64");
}

TEST(MetaProperties, IdsAreKafkaUuids) {
  for (int i = 0; i < 1000; ++i) {
    const std::string id = layout::random_directory_id();
    ASSERT_EQ(uuid_problem(id), "") << id;
    ASSERT_NE(id.front(), '-') << id;
  }
  const std::string a = directory_id_for_path("/data/d1");
  EXPECT_EQ(uuid_problem(a), "");
  EXPECT_EQ(a, directory_id_for_path("/data/d1")) << "the same path gives the same id";
  EXPECT_NE(a, directory_id_for_path("/data/d2"));
  for (int i = 0; i < 1000; ++i) {
    ASSERT_NE(directory_id_for_path("/d" + std::to_string(i)).front(), '-');
  }
}

}  // namespace
}  // namespace lds

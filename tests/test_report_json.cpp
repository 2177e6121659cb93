// The JSON report of a checked file (tools/report/report_json.hpp), called directly: what a
// valid and an invalid recording's object holds, how a file name that is not UTF-8 is kept
// exactly, what places a member of an archive, and the options a verdict was made under. The
// command's tests (test_cli*) compare the same objects as the command prints them.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "inputanim/inputanim.hpp"
#include "report/report_json.hpp"
#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::tools;
using namespace inputanim::testing;

namespace {

report checked(const bytes& file) {
    return validate(view(file));
}

}  // namespace

TEST(ReportJson, AValidRecordingsObjectSaysWhatItHoldsAndWhatItWasCheckedWith) {
    const bytes file = small_file(shape::v11_full);
    const nlohmann::json j = report_json(checked(file), {}, file.size());
    EXPECT_EQ(j["valid"], true);
    EXPECT_EQ(j["bytes"], file.size());
    EXPECT_EQ(j["version"], "1.1");
    EXPECT_EQ(j["layout"], "full");
    EXPECT_EQ(j["has_camera"], true);
    EXPECT_EQ(j["markers"], 2);
    // Each warning its object (the report keeps the first report::max_warnings), and all counted.
    ASSERT_TRUE(j["warnings"].is_array());
    EXPECT_EQ(j["warnings_found"], j["warnings"].size());
    EXPECT_EQ(j["checked_with"], options_json({}));
    // Neither an error nor a compressed size: the file is valid and was not gzip.
    EXPECT_FALSE(j.contains("error"));
    EXPECT_FALSE(j.contains("compressed_bytes"));
}

TEST(ReportJson, AnInvalidRecordingsObjectHoldsItsErrorAndNullForWhatItDoesNotTell) {
    const bytes file = small_file(shape::v10);
    const bytes cut(file.begin(), file.begin() + 4);
    const nlohmann::json j = report_json(checked(cut), {}, cut.size());
    EXPECT_EQ(j["valid"], false);
    ASSERT_TRUE(j.contains("error"));
    EXPECT_EQ(j["error"]["code"], "truncated");
    // The header could not be read: nothing about it is said.
    EXPECT_TRUE(j["version"].is_null());
    EXPECT_TRUE(j["layout"].is_null());
    EXPECT_TRUE(j["has_camera"].is_null());
    EXPECT_TRUE(j["start"].is_null());
}

TEST(ReportJson, AGzipRecordingsObjectHasItsCompressedSizeBesideItsInflatedOne) {
    const bytes file = small_file(shape::v11_compact);
    const nlohmann::json j = report_json(checked(file), {}, file.size(), 100);
    EXPECT_EQ(j["bytes"], file.size());
    EXPECT_EQ(j["compressed_bytes"], 100);
}

TEST(ReportJson, AnErrorObjectHasEveryFieldNullWhereItDoesNotApply) {
    const error e{errc::truncated, 12, error_place::header, {}, -1, limit_kind::none};
    const nlohmann::json j = error_json(e);
    EXPECT_EQ(j["code"], "truncated");
    EXPECT_EQ(j["offset"], 12);
    EXPECT_EQ(j["place"], "header");
    EXPECT_TRUE(j["curve"].is_null());
    EXPECT_TRUE(j["keyframe"].is_null());
    EXPECT_TRUE(j["marker"].is_null());
    EXPECT_TRUE(j["limit"].is_null());
    EXPECT_EQ(j["message"], e.message());
}

TEST(ReportJson, AUtf8NameIsItsPathAlone) {
    const nlohmann::json line = nlohmann::json::parse(json_line("takes/é.bin", {{"valid", true}}));
    EXPECT_EQ(line["path"], "takes/é.bin");
    EXPECT_FALSE(line.contains("path_bytes"));
    EXPECT_EQ(line["valid"], true);
}

TEST(ReportJson, ANameThatIsNotUtf8IsReplacedInPathAndKeptExactlyInPathBytes) {
    const std::string name = "a\xff.bin";
    const nlohmann::json line = nlohmann::json::parse(json_line(name, nlohmann::json::object()));
    EXPECT_EQ(line["path"], "a\xEF\xBF\xBD.bin");
    EXPECT_EQ(line["path_bytes"], "61ff2e62696e");
}

TEST(ReportJson, AMemberIsPlacedByItsArchiveNameOrdinalOffsetAndSize) {
    archive_member m;
    m.name = "take.bin";
    m.ordinal = 3;
    m.size = 1000;
    m.data_offset = 512;
    nlohmann::json fields = nlohmann::json::object();
    add_member(fields, "takes.tar", m);
    EXPECT_EQ(fields, (nlohmann::json{{"archive", "takes.tar"},
                                      {"member", "take.bin"},
                                      {"member_ordinal", 3},
                                      {"member_offset", 512},
                                      {"member_size", 1000}}));
}

TEST(ReportJson, AMemberHeldCompressedHasNoOffsetAndNamesNotUtf8AreKeptAsHex) {
    archive_member m;
    m.name = "\xfe";
    nlohmann::json fields = nlohmann::json::object();
    add_member(fields, "\xff.zip", m);
    EXPECT_TRUE(fields["member_offset"].is_null());
    EXPECT_EQ(fields["archive_bytes"], "ff2e7a6970");
    EXPECT_EQ(fields["member_bytes"], "fe");
}

TEST(ReportJson, TheOptionsSayTheLevelLayoutRulesAndEachLimitOrNullForNone) {
    validate_options how;
    how.limits.max_bytes = 1024;
    const nlohmann::json j = options_json(how);
    EXPECT_EQ(j["level"], level_name(how.level));
    EXPECT_EQ(j["layout"], layout_choice_name(how.layout));
    EXPECT_EQ(j["rules"], rules_version);
    EXPECT_EQ(j["limits"]["max_bytes"], 1024);
    EXPECT_TRUE(options_json({})["limits"]["max_bytes"].is_null());
}

TEST(ReportJson, AFloatIsWrittenAsTheShortestDecimalThatReadsBackAsIt) {
    EXPECT_EQ(json_number(0.1f), 0.1);
    EXPECT_EQ(nlohmann::json(json_number(1.5f)).dump(), "1.5");
}

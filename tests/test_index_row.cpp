// The rows of `inputanim index` and the one table of their columns (tools/index/index_row.hpp),
// called directly: which columns a row has and in what order (the Python frame's), which the
// database's table recordings has, that each has the source of its value, a row made from the
// table's sources, and a row's line of JSON Lines, the same whether the report's fields are
// written as text (as the index writes them) or as an object. The command's tests
// (test_cli_index*) compare the lines and the databases it writes.
#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "index/index_row.hpp"
#include "inputanim/inputanim.hpp"
#include "report/report_json.hpp"
#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::tools;
using namespace inputanim::testing;

namespace {

std::vector<std::string_view> names_of(const auto& columns) {
    std::vector<std::string_view> names;
    for (const auto& c : columns) names.push_back(c.name);
    return names;
}

// The table's json columns that `row` has, in the table's order; fails when the row has a field
// that is no such column.
std::vector<std::string_view> fields_in_table_order(const index_row& row) {
    std::vector<std::string_view> names;
    for (const index_column& c : index_columns) {
        if (row.fields().contains(c.name)) names.push_back(c.name);
    }
    EXPECT_EQ(names.size(), row.fields().size()) << row.json_text();
    return names;
}

// The row of `from` whose report has the fields of `report`, each written as its value.
index_row row_of(const row_source& from, const nlohmann::json& report) {
    json_object_text fields;
    for (const auto& [key, value] : report.items()) fields.value(key, value);
    return make_row(from, fields);
}

// What the row of a file named `path` is made from.
row_source file_named(std::string_view path) {
    row_source from;
    from.path = path;
    return from;
}

// The report of a file's check, as report_json gives it.
nlohmann::json file_report(const bytes& file) {
    return report_json(validate(view(file)), {}, file.size());
}

const std::vector<std::string_view> report_field_names = {
    "valid",  "bytes",     "version", "layout", "has_camera", "has_hands", "has_gaze",
    "curves", "keyframes", "markers", "start",  "duration",   "warnings",  "warnings_found"};

std::vector<std::string_view> concat(std::vector<std::string_view> a,
                                     const std::vector<std::string_view>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

}  // namespace

TEST(IndexRow, ARowsFieldsAreTheTablesJsonColumnsInTheFramesOrder) {
    const std::vector<std::string_view> expected = {
        "path",           "path_bytes",   "valid",          "bytes",         "version",
        "layout",         "has_camera",   "has_hands",      "has_gaze",      "curves",
        "keyframes",      "markers",      "start",          "duration",      "warnings",
        "warnings_found", "error",        "checked_with",   "archive",       "archive_bytes",
        "member",         "member_bytes", "member_ordinal", "member_offset", "member_size"};
    EXPECT_EQ(names_of(index_columns), expected);
    for (const index_column& c : index_columns) {
        const auto* in_table =
            std::find_if(index_table.begin(), index_table.end(),
                         [&](const index_table_column& t) { return t.name == c.name; });
        ASSERT_NE(in_table, index_table.end()) << c.name;
        EXPECT_EQ(in_table->json, c.type) << c.name;
    }
}

TEST(IndexRow, EachColumnIsInTheTableOnce) {
    std::set<std::string_view> seen;
    for (const index_table_column& c : index_table) {
        EXPECT_TRUE(seen.insert(c.name).second) << c.name;
        // Every column is a row's field, the database's, or both.
        EXPECT_TRUE(c.json || !c.sql.empty()) << c.name;
    }
}

TEST(IndexRow, TheDatabaseKeepsTheErrorsFieldsAndTheMetricsAColumnEachButNotTheNamesHex) {
    std::vector<std::string_view> sql;
    for (const index_table_column& c : index_table) {
        if (!c.sql.empty()) sql.push_back(c.name);
    }
    EXPECT_EQ(sql.size(), 41u);
    EXPECT_EQ(sql.front(), "path");
    EXPECT_EQ(sql.back(), "member_size");
    for (const std::string_view only_json :
         {"path_bytes", "warnings", "error", "archive_bytes", "member_bytes"}) {
        EXPECT_EQ(std::count(sql.begin(), sql.end(), only_json), 0) << only_json;
    }
    for (const std::string_view only_sql :
         {"error_code", "size", "mtime", "inode", "report", "indexed_at", "fixations"}) {
        EXPECT_EQ(std::count(sql.begin(), sql.end(), only_sql), 1) << only_sql;
    }
}

TEST(IndexRow, TheColumnsASchemaAddedComeAfterThoseOfTheSchemasBefore) {
    int since = 2;
    for (const index_table_column& c : index_table) {
        if (c.sql.empty()) continue;
        EXPECT_GE(c.since, since) << c.name;
        since = c.since;
    }
    EXPECT_EQ(since, 4);
}

TEST(IndexRow, TheMetricsColumnsAreObjects) {
    EXPECT_EQ(names_of(metrics_columns),
              (std::vector<std::string_view>{"metrics", "metrics_error"}));
    for (const index_column& c : metrics_columns) EXPECT_EQ(c.type, column_type::object);
}

TEST(IndexRow, EachColumnTypeHasTheNameThePythonPackageMapsToADtype) {
    EXPECT_EQ(column_type_name(column_type::text), "text");
    EXPECT_EQ(column_type_name(column_type::flag), "flag");
    EXPECT_EQ(column_type_name(column_type::optional_flag), "optional_flag");
    EXPECT_EQ(column_type_name(column_type::count), "count");
    EXPECT_EQ(column_type_name(column_type::number), "number");
    EXPECT_EQ(column_type_name(column_type::object), "object");
}

TEST(IndexRow, ARowsLineIsItsFieldsAsOneCompactObject) {
    const index_row row("a.bin", {{"valid", true}, {"path", "a.bin"}, {"bytes", 12}});
    EXPECT_EQ(row.path(), "a.bin");
    EXPECT_EQ(row.json_text(), R"({"bytes":12,"path":"a.bin","valid":true})");
}

TEST(IndexRow, ARowMadeAsItsLineHasTheLinesFields) {
    const index_row row = index_row::from_text("a.bin", R"({"bytes":12,"path":"a\ufffd"})");
    EXPECT_EQ(row.json_text(), R"({"bytes":12,"path":"a\ufffd"})");
    EXPECT_EQ(row.fields(), (nlohmann::json{{"bytes", 12}, {"path", "a\xEF\xBF\xBD"}}));
    index_row taken = index_row::from_text("a.bin", R"({"valid":false})");
    EXPECT_EQ(std::move(taken).take_fields(), (nlohmann::json{{"valid", false}}));
}

TEST(IndexRow, BytesOfALineThatAreNotUtf8AreReplaced) {
    const index_row row("a\xff", {{"path", "a\xff"}, {"path_bytes", "61ff"}});
    EXPECT_EQ(row.json_text(), "{\"path\":\"a\xEF\xBF\xBD\",\"path_bytes\":\"61ff\"}");
}

TEST(IndexRow, TakingTheFieldsLeavesTheRowNone) {
    index_row row("a.bin", {{"valid", false}});
    const nlohmann::json fields = std::move(row).take_fields();
    EXPECT_EQ(fields, (nlohmann::json{{"valid", false}}));
}

TEST(IndexRow, EachFieldOfARowHasASourceAndNoColumnOfTheDatabaseAloneHasOne) {
    for (const index_table_column& c : index_table) {
        EXPECT_EQ(c.json.has_value(), c.field != nullptr) << c.name;
    }
}

// At run time: GCC does not compare a function's address with null in a constant expression.
TEST(IndexRow, EachColumnOfTheDatabaseHasTheSourceOfItsValueAndNoFieldAloneHasOne) {
    for (const index_table_column& c : index_table) {
        EXPECT_EQ(!c.sql.empty(), c.stored != nullptr) << c.name;
    }
}

TEST(IndexRow, AValidRecordingsRowHasTheTablesJsonColumnsInOrderWithoutTheError) {
    const index_row row = row_of(file_named("a.bin"), file_report(small_file(shape::v11_full)));
    EXPECT_EQ(fields_in_table_order(row),
              concat(concat({"path"}, report_field_names), {"checked_with"}));
    EXPECT_EQ(row.path(), "a.bin");
}

TEST(IndexRow, AnInvalidRecordingsRowHasTheTablesJsonColumnsInOrderWithTheError) {
    const bytes file = small_file(shape::v10);
    const index_row row =
        row_of(file_named("a.bin"), file_report(bytes(file.begin(), file.begin() + 4)));
    EXPECT_EQ(fields_in_table_order(row),
              concat(concat({"path"}, report_field_names), {"error", "checked_with"}));
    EXPECT_EQ(row.fields()["error"]["code"], "truncated");
}

TEST(IndexRow, ARowsLineIsTheReportsWithThePath) {
    for (const std::string_view path : {std::string_view("a.bin"), std::string_view("a\xff.bin")}) {
        for (const bool cut : {false, true}) {
            bytes file = small_file(shape::v11_compact);
            if (cut) file.resize(file.size() / 2);
            const nlohmann::json report = file_report(file);
            EXPECT_EQ(row_of(file_named(path), report).json_text(), json_line(path, report));
        }
    }
}

// As the index writes its rows: the report's fields as text, and the run's options as theirs,
// made once.
TEST(IndexRow, ARowOfTheReportsFieldsWrittenAsTextIsTheRowOfTheReportsObject) {
    // Three warnings at level full: a key far from unit length (small_model's), a negative time
    // and a dropped W.
    model warned = small_model(shape::v11_compact);
    warned[camera_curve(pose_channel::position_x)].keys[0].time = -0.5f;
    warned[joint_curve(side::left, joint::wrist, pose_channel::rotation_w)].keys.resize(1);
    for (const bytes& file : {small_file(shape::v11_compact), small_file(shape::v10), write(warned),
                              bytes(7, std::byte{1})}) {
        for (const std::string_view path :
             {std::string_view("a.bin"), std::string_view("a\xff\"")}) {
            const report rep = validate(view(file), {level::full, layout_choice::automatic, {}});
            json_object_text fields;
            report_fields(rep, file.size(), fields);
            fields.raw("checked_with",
                       options_json({level::full, layout_choice::automatic, {}}).dump());
            const nlohmann::json report =
                report_json(rep, {level::full, layout_choice::automatic, {}}, file.size());
            EXPECT_EQ(make_row(file_named(path), fields).json_text(), json_line(path, report));
        }
    }
}

TEST(IndexRow, AnUnreadableFilesRowHasOnlyItsPathVerdictErrorAndOptions) {
    const index_row row = row_of(file_named("a\xff"),
                                 {{"valid", false},
                                  {"error", {{"code", "unreadable"}, {"message", "No such file"}}},
                                  {"checked_with", options_json({})}});
    EXPECT_EQ(
        fields_in_table_order(row),
        (std::vector<std::string_view>{"path", "path_bytes", "valid", "error", "checked_with"}));
    EXPECT_EQ(row.fields()["path_bytes"], "61ff");
}

TEST(IndexRow, AMembersRowPlacesItAsAValidateReportOfTheMemberDoes) {
    archive_member m;
    m.name = "take\xfe.bin";
    m.ordinal = 3;
    m.size = 120;
    for (const std::optional<std::uint64_t> offset :
         {std::optional<std::uint64_t>(512), std::optional<std::uint64_t>()}) {
        m.data_offset = offset;
        const nlohmann::json report = file_report(small_file(shape::v11_compact));
        const row_source from{
            .path = "t\xff.tar/take\xfe.bin", .archive = "t\xff.tar", .member = &m, .ordinal = 3};
        nlohmann::json expected = report;
        add_member(expected, from.archive, m);
        EXPECT_EQ(row_of(from, report).json_text(), json_line(from.path, expected));
    }
}

TEST(IndexRow, AStoppedWalksRowHasTheArchiveNoMemberAndTheEntryItStoppedAt) {
    const index_row row =
        row_of({.path = "t\xff.tar", .archive = "t\xff.tar", .member = nullptr, .ordinal = 7},
               {{"valid", false}, {"checked_with", options_json({})}});
    // The archive's name not UTF-8 is in path_bytes alone.
    EXPECT_EQ(fields_in_table_order(row),
              (std::vector<std::string_view>{"path", "path_bytes", "valid", "checked_with",
                                             "archive", "member", "member_ordinal"}));
    EXPECT_TRUE(row.fields()["member"].is_null());
    EXPECT_EQ(row.fields()["member_ordinal"], 7);
}

TEST(IndexRow, ARowTakesTheMetricsColumnsAndNothingElseOfTheReport) {
    nlohmann::json report = file_report(small_file(shape::v11_compact));
    report["metrics"] = nullptr;
    report["metrics_error"] = {{"code", "not_measured"}};
    report["compressed_bytes"] = 10;
    const index_row row = row_of(file_named("a.bin"), report);
    EXPECT_TRUE(row.fields().contains("metrics"));
    EXPECT_EQ(row.fields()["metrics_error"]["code"], "not_measured");
    EXPECT_FALSE(row.fields().contains("compressed_bytes"));
}

// The rows of `inputanim index` and the one table of their columns (tools/index/index_row.hpp),
// called directly: which columns a row has and in what order (the Python frame's), which the
// database's table recordings has, that each has the source of its value, a row made from the
// table's sources, and a row's line of JSON Lines. The command's tests
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

// The fields of a file's row, as the run's report gives them.
row_source file_source(std::string_view path, const bytes& file) {
    row_source from;
    from.path = path;
    from.report = report_json(validate(view(file)), {}, file.size());
    return from;
}

const std::vector<std::string_view> report_fields = {
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
    const index_row row = make_row(file_source("a.bin", small_file(shape::v11_full)));
    EXPECT_EQ(fields_in_table_order(row),
              concat(concat({"path"}, report_fields), {"checked_with"}));
    EXPECT_EQ(row.path(), "a.bin");
}

TEST(IndexRow, AnInvalidRecordingsRowHasTheTablesJsonColumnsInOrderWithTheError) {
    const bytes file = small_file(shape::v10);
    const index_row row = make_row(file_source("a.bin", bytes(file.begin(), file.begin() + 4)));
    EXPECT_EQ(fields_in_table_order(row),
              concat(concat({"path"}, report_fields), {"error", "checked_with"}));
    EXPECT_EQ(row.fields()["error"]["code"], "truncated");
}

TEST(IndexRow, ARowsLineIsTheReportsWithThePath) {
    for (const std::string_view path : {std::string_view("a.bin"), std::string_view("a\xff.bin")}) {
        for (const bool cut : {false, true}) {
            bytes file = small_file(shape::v11_compact);
            if (cut) file.resize(file.size() / 2);
            const nlohmann::json report = report_json(validate(view(file)), {}, file.size());
            EXPECT_EQ(make_row(file_source(path, file)).json_text(), json_line(path, report));
        }
    }
}

TEST(IndexRow, AnUnreadableFilesRowHasOnlyItsPathVerdictErrorAndOptions) {
    row_source from;
    from.path = "a\xff";
    from.report = {{"valid", false},
                   {"error", {{"code", "unreadable"}, {"message", "No such file"}}},
                   {"checked_with", options_json({})}};
    const index_row row = make_row(from);
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
        const bytes file = small_file(shape::v11_compact);
        row_source from = file_source("t\xff.tar/take\xfe.bin", file);
        from.archive = "t\xff.tar";
        from.member = &m;
        from.ordinal = 3;
        nlohmann::json expected = from.report;
        add_member(expected, from.archive, m);
        EXPECT_EQ(make_row(from).json_text(), json_line(from.path, expected));
    }
}

TEST(IndexRow, AStoppedWalksRowHasTheArchiveNoMemberAndTheEntryItStoppedAt) {
    row_source from;
    from.path = "t\xff.tar";
    from.report = {{"valid", false}, {"checked_with", options_json({})}};
    from.archive = from.path;
    from.ordinal = 7;
    const index_row row = make_row(from);
    // The archive's name not UTF-8 is in path_bytes alone.
    EXPECT_EQ(fields_in_table_order(row),
              (std::vector<std::string_view>{"path", "path_bytes", "valid", "checked_with",
                                             "archive", "member", "member_ordinal"}));
    EXPECT_TRUE(row.fields()["member"].is_null());
    EXPECT_EQ(row.fields()["member_ordinal"], 7);
}

TEST(IndexRow, ARowTakesTheMetricsColumnsAndNothingElseOfTheReport) {
    row_source from = file_source("a.bin", small_file(shape::v11_compact));
    from.report["metrics"] = nullptr;
    from.report["metrics_error"] = {{"code", "not_measured"}};
    from.report["compressed_bytes"] = 10;
    const index_row row = make_row(std::move(from));
    EXPECT_TRUE(row.fields().contains("metrics"));
    EXPECT_EQ(row.fields()["metrics_error"]["code"], "not_measured");
    EXPECT_FALSE(row.fields().contains("compressed_bytes"));
}

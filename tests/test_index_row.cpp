// The rows of `inputanim index` and the one table of their columns (tools/index/index_row.hpp),
// called directly: which columns a row has and in what order (the Python frame's), which the
// database's table recordings has, and a row's line of JSON Lines. The command's tests
// (test_cli_index*) compare the lines and the databases it writes.
#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "index/index_row.hpp"

using namespace inputanim::records;

namespace {

std::vector<std::string_view> names_of(const auto& columns) {
    std::vector<std::string_view> names;
    for (const auto& c : columns) names.push_back(c.name);
    return names;
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

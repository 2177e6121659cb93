// An object written field by field (tools/report/json_text.hpp): as text, it is byte for byte what
// the same fields written into an nlohmann::json dump as (compact, bytes that are not UTF-8
// replaced), whatever the order the fields were written in, for every kind of value and every
// string, including those the serializer escapes or replaces.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/json_text.hpp"

using namespace inputanim::tools;

namespace {

std::string dumped(const nlohmann::json& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The text of the fields `write` writes, and the dump of the same fields written as a value.
struct both {
    std::string text;
    std::string dump;
};
template <class Write>
both written(Write&& write) {
    json_object_text text;
    write(text);
    both b;
    text.append_to(b.text);
    json_object_value value;
    write(value);
    b.dump = dumped(std::move(value).take());
    return b;
}

std::string string_text(std::string_view s) {
    std::string out;
    append_json_string(out, s);
    return out;
}

std::string number_text(double v) {
    std::string out;
    append_json_number(out, v);
    return out;
}

}  // namespace

TEST(JsonText, AnObjectsTextHasItsKeysSortedAsTheObjectsDump) {
    const both b = written([](auto& out) {
        out.text("path", "a.bin");
        out.boolean("valid", true);
        out.count("bytes", 12);
        out.null("markers");
        out.integer("member_ordinal", -1);
        out.number("start", 0.25);
    });
    EXPECT_EQ(b.text, R"({"bytes":12,"markers":null,"member_ordinal":-1,"path":"a.bin",)"
                      R"("start":0.25,"valid":true})");
    EXPECT_EQ(b.text, b.dump);
}

TEST(JsonText, KeysSortByTheirBytesAsTheObjectsDo) {
    const both b = written([](auto& out) {
        for (const std::string_view key : {"b", "a_", "A", "\xc3\xa9", "a", "", "ab", "Z"}) {
            out.boolean(key, true);
        }
    });
    EXPECT_EQ(b.text, b.dump);
}

TEST(JsonText, AKeyWrittenAgainKeepsTheLastValueAsTheObjectDoes) {
    const both b = written([](auto& out) {
        out.count("a", 1);
        out.text("b", "x");
        out.count("a", 2);
    });
    EXPECT_EQ(b.text, R"({"a":2,"b":"x"})");
    EXPECT_EQ(b.text, b.dump);
}

TEST(JsonText, AnEmptyObjectIsTwoBraces) {
    EXPECT_EQ(written([](auto&) {}).text, "{}");
}

TEST(JsonText, StringsAreWrittenAsTheSerializerWritesThem) {
    const std::vector<std::string> strings = {
        "",
        "plain ascii /path/to/a.bin",
        "quote \" and backslash \\",
        std::string("nul \0 inside", 12),
        "controls \x01\x08\t\n\x0b\x0c\r\x1f end",
        "delete \x7f stays",
        "utf-8 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
        "lone byte \xff",
        "overlong \xc0\xaf",
        "surrogate \xed\xa0\x80",
        "cut short \xe2\x82",
        "past U+10FFFF \xf4\x90\x80\x80",
        "continuation first \x80\x80 then \xc3\xa9",
        "mixed \" \xff \n",
    };
    for (const std::string& s : strings) {
        EXPECT_EQ(string_text(s), dumped(nlohmann::json(s))) << s;
    }
}

TEST(JsonText, NumbersAreWrittenAsTheSerializerWritesADouble) {
    const std::vector<double> numbers = {0.0,
                                         -0.0,
                                         1.0,
                                         -1.0,
                                         0.1,
                                         0.55,
                                         1e-7,
                                         1e15,
                                         1e16,
                                         1e21,
                                         123456789.125,
                                         static_cast<double>(0.1f),
                                         std::numeric_limits<double>::denorm_min(),
                                         std::numeric_limits<double>::min(),
                                         std::numeric_limits<double>::max(),
                                         -std::numeric_limits<double>::max()};
    for (const double v : numbers) EXPECT_EQ(number_text(v), dumped(nlohmann::json(v))) << v;
}

TEST(JsonText, ANumberThatIsNotFiniteIsNullAsTheSerializerWritesIt) {
    for (const double v : {std::nan(""), std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()}) {
        EXPECT_EQ(number_text(v), "null");
        EXPECT_EQ(number_text(v), dumped(nlohmann::json(v)));
    }
}

TEST(JsonText, CountsAndIntegersKeepEveryDigitToTheirLimits) {
    const both b = written([](auto& out) {
        out.count("c0", 0);
        out.count("cmax", std::numeric_limits<std::uint64_t>::max());
        out.integer("imin", std::numeric_limits<std::int64_t>::min());
        out.integer("imax", std::numeric_limits<std::int64_t>::max());
    });
    EXPECT_EQ(b.text, R"({"c0":0,"cmax":18446744073709551615,"imax":9223372036854775807,)"
                      R"("imin":-9223372036854775808})");
    EXPECT_EQ(b.text, b.dump);
}

TEST(JsonText, NestedObjectsAndArraysOfObjectsAreSortedAtEachLevel) {
    const both b = written([](auto& out) {
        out.object("z", [](auto& inner) {
            inner.null("y");
            inner.object("x", [](auto& deeper) {
                deeper.count("b", 2);
                deeper.count("a", 1);
            });
        });
        out.objects("list", 3, [](std::size_t i, auto& item) {
            item.count("index", i);
            item.text("code", i == 1 ? "b\xff" : "a");
        });
        out.objects("none", 0, [](std::size_t, auto&) {});
    });
    EXPECT_EQ(b.text, b.dump);
    EXPECT_NE(b.text.find(R"("none":[])"), std::string::npos);
}

TEST(JsonText, AValueOrRawTextIsWrittenAsItsDump) {
    const nlohmann::json v = {{"b", {1, 2.5, nullptr}}, {"a", "t\xff"}};
    const both b = written([&](auto& out) {
        out.value("v", v);
        out.raw("r", R"({"k":[true,false]})");
    });
    EXPECT_EQ(b.text, b.dump);
}

TEST(JsonText, KeepIfDropsTheFieldsItRefuses) {
    json_object_text out;
    out.count("keep", 1);
    out.count("drop", 2);
    out.count("also", 3);
    out.keep_if([](std::string_view key) { return key != "drop"; });
    EXPECT_TRUE(out.contains("keep"));
    EXPECT_FALSE(out.contains("drop"));
    std::string text;
    out.append_to(text);
    EXPECT_EQ(text, R"({"also":3,"keep":1})");
}

TEST(JsonText, ClearedTheObjectHasNoFieldsAndIsWrittenAgainFromNothing) {
    json_object_text out;
    out.text("a", "x");
    std::string first;
    out.append_to(first);
    out.clear();
    EXPECT_FALSE(out.contains("a"));
    out.count("b", 1);
    std::string second;
    out.append_to(second);
    EXPECT_EQ(first, R"({"a":"x"})");
    EXPECT_EQ(second, R"({"b":1})");
}

TEST(JsonText, TheObjectIsAppendedAfterWhatTheOutputHolds) {
    json_object_text out;
    out.count("a", 1);
    std::string text = "line: ";
    out.append_to(text);
    EXPECT_EQ(text, R"(line: {"a":1})");
}

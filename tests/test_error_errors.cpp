// What the name parsers refuse: anything but an exact stable name, and the text "unknown" that
// the name functions give for a value outside their enumeration.
#include <gtest/gtest.h>

#include <string_view>

#include "inputanim/inputanim.hpp"

using namespace inputanim;

TEST(ErrorErrors, ParsersRefuseEmptyText) {
    EXPECT_EQ(parse_error_name(""), std::nullopt);
    EXPECT_EQ(parse_limit_name(""), std::nullopt);
    EXPECT_EQ(parse_place_name(""), std::nullopt);
    EXPECT_EQ(parse_warning_name(""), std::nullopt);
    EXPECT_EQ(parse_layout_name(""), std::nullopt);
    EXPECT_EQ(parse_layout_choice_name(""), std::nullopt);
    EXPECT_EQ(parse_level_name(""), std::nullopt);
}

TEST(ErrorErrors, ParsersRefuseTheNameOfNoValue) {
    EXPECT_EQ(parse_error_name("unknown"), std::nullopt);
    EXPECT_EQ(parse_limit_name("unknown"), std::nullopt);
    EXPECT_EQ(parse_place_name("unknown"), std::nullopt);
    EXPECT_EQ(parse_warning_name("unknown"), std::nullopt);
    EXPECT_EQ(parse_layout_name("unknown"), std::nullopt);
    EXPECT_EQ(parse_layout_choice_name("unknown"), std::nullopt);
    EXPECT_EQ(parse_level_name("unknown"), std::nullopt);
}

TEST(ErrorErrors, ParsersMatchExactlyNotByCaseOrPrefix) {
    EXPECT_EQ(parse_error_name("Truncated"), std::nullopt);
    EXPECT_EQ(parse_error_name("truncated "), std::nullopt);
    EXPECT_EQ(parse_error_name("bad"), std::nullopt);
    EXPECT_EQ(parse_limit_name("bytes"), std::nullopt);
    EXPECT_EQ(parse_place_name("marker"), std::nullopt);
    EXPECT_EQ(parse_warning_name("negative"), std::nullopt);
    EXPECT_EQ(parse_layout_name("FULL"), std::nullopt);
    EXPECT_EQ(parse_level_name("struct"), std::nullopt);
}

TEST(ErrorErrors, LayoutIsNotALayoutChoiceName) {
    // "auto" chooses a layout; no file has it.
    EXPECT_EQ(parse_layout_name("auto"), std::nullopt);
    EXPECT_EQ(parse_layout_choice_name("automatic"), std::nullopt);
}

TEST(ErrorErrors, TheCategoryDescribesAValueOfNoCodeAsUnknown) {
    EXPECT_EQ(error_category().message(static_cast<int>(errc::ratio_exceeded) + 1),
              "unknown error");
    EXPECT_EQ(error_category().message(-1), "unknown error");
    // Would wrap onto errc::truncated if cut to the enumeration's 8 bits.
    EXPECT_EQ(error_category().message(257), "unknown error");
}

TEST(ErrorErrors, TheOptionCategoryDescribesAValueOfNoProblemAsUnknown) {
    EXPECT_EQ(option_error_category().message(200), "unknown option error");
    EXPECT_EQ(option_error_category().message(-1), "unknown option error");
    EXPECT_EQ(option_error_category().message(257), "unknown option error");
}

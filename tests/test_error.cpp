// Specification of the error model: every errc is a std::error_code of the "inputanim" category
// with a stable name and a description, and every enumeration the reports name (codes, limits,
// places, warnings, layouts, layout choices, levels) reads back from its name. What is wrong with
// the options of a function is an option_error of its own category. Each category of the library
// (error.hpp's table) has its own name, and each of its codes one message and at most the one
// std::errc condition that means the same (the input layer's category: test_input_errors).
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <tuple>
#include <vector>

#include "inputanim/inputanim.hpp"

using namespace inputanim;

namespace {

// Every code with its stable name (as JSON and SQLite hold it) and its description.
const std::vector<std::tuple<errc, std::string_view, std::string_view>>& every_code() {
    static const std::vector<std::tuple<errc, std::string_view, std::string_view>> codes = {
        {errc::ok, "ok", "no error"},
        {errc::truncated, "truncated", "the file ends before this field"},
        {errc::bad_magic, "bad_magic", "not an MRTK input animation file (wrong magic number)"},
        {errc::unsupported_version, "unsupported_version",
         "unsupported version (only 1.0 and 1.1 exist)"},
        {errc::bad_flag, "bad_flag", "a v1.1 block flag is neither 0 nor 1"},
        {errc::bad_wrap_mode, "bad_wrap_mode", "wrap mode is not one of 0, 1, 2, 4, 8"},
        {errc::negative_count, "negative_count", "the count is negative"},
        {errc::bad_marker, "bad_marker",
         "marker name length is not a valid 7-bit encoded length (over 5 bytes or above "
         "2^31-1)"},
        {errc::trailing_bytes, "trailing_bytes", "bytes follow the end of the marker list"},
        {errc::limit_exceeded, "limit_exceeded", "a configured limit was passed"},
        {errc::non_finite, "non_finite", "the value is not finite"},
        {errc::bad_bool_value, "bad_bool_value", "a bool keyframe's value is neither 0.0 nor 1.0"},
        {errc::bad_weighted_mode, "bad_weighted_mode", "weighted mode is not 0-3"},
        {errc::unsorted_keys, "unsorted_keys", "key time is not greater than the previous key's"},
        {errc::bad_utf8, "bad_utf8", "marker name is not valid UTF-8"},
        {errc::bad_compression, "bad_compression",
         "the compressed bytes cannot be inflated (a gzip stream or a zip member: bad header, "
         "bad data, bad CRC or length, or cut short)"},
        {errc::io_error, "io_error",
         "the input could not be read whole (a page of the mapping vanished)"},
        {errc::archive_truncated, "archive_truncated",
         "the archive ends inside a header or a member's bytes"},
        {errc::archive_damaged, "archive_damaged",
         "an archive header does not parse (a tar header whose checksum or fields are wrong, a zip "
         "record that is not one)"},
        {errc::header_too_large, "header_too_large",
         "an archive's extended header (pax, GNU long name) is larger than 1 MiB"},
        {errc::member_past_end, "member_past_end",
         "the member's bytes would end past the archive's end"},
        {errc::header_mismatch, "header_mismatch",
         "the member's zip local header disagrees with the central directory, which is trusted"},
        {errc::overlapping_members, "overlapping_members",
         "the member's bytes overlap another member's (a zip bomb's trick)"},
        {errc::encrypted_member, "encrypted_member", "the member is encrypted"},
        {errc::unsupported_method, "unsupported_method",
         "the member is compressed by a method other than stored and deflate"},
        {errc::too_many_members, "too_many_members",
         "the archive holds more members than allowed (--max-members)"},
        {errc::archive_too_large, "archive_too_large",
         "the archive's members inflate to more bytes than allowed (--max-archive-bytes)"},
        {errc::ratio_exceeded, "ratio_exceeded",
         "the member inflates to more than the allowed multiple of its compressed size "
         "(--max-ratio)"},
    };
    return codes;
}

// A code of a category other than errc: its message, and the std::errc condition it is
// equivalent to, if any.
template <typename E>
struct category_code {
    E code;
    std::string_view message;
    std::optional<std::errc> condition;
};

// Every code of one category from its first (none, a false code): of that category, its message
// and its condition; a code equivalent to no std::errc is equivalent only to itself. No two codes
// share a message, and a value after the last code is none of them.
template <typename E>
void expect_category(const std::error_category& category, const char* name,
                     const std::vector<category_code<E>>& codes) {
    EXPECT_STREQ(category.name(), name);
    std::set<std::string_view> messages;
    for (std::size_t i = 0; i < codes.size(); ++i) {
        const auto& [code, message, condition] = codes[i];
        EXPECT_EQ(static_cast<std::size_t>(code), i) << name;
        const std::error_code ec = code;
        EXPECT_EQ(&ec.category(), &category) << name << " " << i;
        EXPECT_EQ(ec.message(), message) << name << " " << i;
        EXPECT_TRUE(messages.insert(message).second) << message;
        if (i == 0) {
            EXPECT_FALSE(ec) << name;
            continue;
        }
        EXPECT_TRUE(ec) << message;
        if (condition) {
            EXPECT_EQ(ec.default_error_condition(), *condition) << message;
            EXPECT_EQ(ec, *condition) << message;
        } else {
            EXPECT_EQ(ec.default_error_condition(), std::error_condition(ec.value(), category))
                << message;
        }
        for (std::size_t j = 0; j < codes.size(); ++j) {
            EXPECT_EQ(ec == std::error_code(codes[j].code), i == j) << message;
        }
    }
    const std::error_code after(static_cast<int>(codes.size()), category);
    EXPECT_EQ(messages.count(after.message()), 0u) << name;
}

}  // namespace

TEST(Error, EveryCodeIsListedInOrderFromZero) {
    const auto& codes = every_code();
    for (std::size_t i = 0; i < codes.size(); ++i) {
        EXPECT_EQ(static_cast<std::size_t>(std::get<0>(codes[i])), i);
    }
    // The value after the last code has no name.
    EXPECT_EQ(error_name(static_cast<errc>(codes.size())), "unknown");
}

TEST(Error, EveryCodeHasItsStableNameAndDescription) {
    for (const auto& [code, name, description] : every_code()) {
        EXPECT_EQ(error_name(code), name);
        EXPECT_EQ(error_description(code), description) << name;
    }
}

TEST(Error, EveryNameParsesBackToItsCode) {
    for (const auto& [code, name, description] : every_code()) {
        EXPECT_EQ(parse_error_name(name), code) << name;
    }
}

TEST(Error, TheCategoryIsNamedInputanimAndDescribesEachCode) {
    EXPECT_STREQ(error_category().name(), "inputanim");
    for (const auto& [code, name, description] : every_code()) {
        EXPECT_EQ(error_category().message(static_cast<int>(code)), description) << name;
    }
}

TEST(Error, EveryCodeConvertsToAnErrorCodeOfTheCategory) {
    for (const auto& [code, name, description] : every_code()) {
        const std::error_code ec = code;
        EXPECT_EQ(&ec.category(), &error_category()) << name;
        EXPECT_EQ(ec.value(), static_cast<int>(code)) << name;
        EXPECT_EQ(ec.message(), description) << name;
        EXPECT_EQ(ec, code) << name;
        EXPECT_EQ(make_error_code(code), ec) << name;
    }
}

TEST(Error, OnlyOkConvertsToAFalseCode) {
    EXPECT_FALSE(std::error_code(errc::ok));
    for (const auto& [code, name, description] : every_code()) {
        if (code != errc::ok) {
            EXPECT_TRUE(std::error_code(code)) << name;
        }
    }
}

TEST(Error, ACodeComparesEqualOnlyToItself) {
    const std::error_code ec = errc::truncated;
    EXPECT_TRUE(ec == errc::truncated);
    EXPECT_FALSE(ec == errc::bad_magic);
    EXPECT_NE(ec, std::make_error_code(std::errc::io_error));
    // The same value in another category is another error.
    EXPECT_NE(ec, std::error_code(static_cast<int>(errc::truncated), std::generic_category()));
}

TEST(Error, LimitNamesAreTheFlagsNames) {
    const std::vector<std::pair<limit_kind, std::string_view>> limits = {
        {limit_kind::none, "none"},
        {limit_kind::bytes, "max_bytes"},
        {limit_kind::keyframes_per_curve, "max_keyframes_per_curve"},
        {limit_kind::total_keyframes, "max_total_keyframes"},
        {limit_kind::markers, "max_markers"},
        {limit_kind::marker_name_bytes, "max_marker_name_bytes"},
    };
    for (const auto& [kind, name] : limits) {
        EXPECT_EQ(limit_name(kind), name);
        EXPECT_EQ(parse_limit_name(name), kind) << name;
    }
    EXPECT_EQ(limit_name(static_cast<limit_kind>(limits.size())), "unknown");
}

TEST(Error, OptionErrorsAreInvalidArgumentsOfTheirOwnCategoryWithStableNames) {
    const std::vector<std::pair<option_error, std::string_view>> errors = {
        {option_error::none, "none"},
        {option_error::bad_version, "bad_version"},
        {option_error::bad_layout, "bad_layout"},
        {option_error::window_not_finite, "window_not_finite"},
        {option_error::window_reversed, "window_reversed"},
        {option_error::bad_position_tolerance, "bad_position_tolerance"},
        {option_error::bad_rotation_tolerance, "bad_rotation_tolerance"},
        {option_error::bad_partition, "bad_partition"},
        {option_error::bad_seconds, "bad_seconds"},
        {option_error::bad_rate, "bad_rate"},
        {option_error::too_many_samples, "too_many_samples"},
        {option_error::rate_too_high, "rate_too_high"},
        {option_error::bad_markers, "bad_markers"},
        {option_error::bad_time_tolerance, "bad_time_tolerance"},
        {option_error::bad_offset, "bad_offset"},
    };
    for (const auto& [e, name] : errors) {
        EXPECT_EQ(option_error_name(e), name);
        const std::error_code ec = e;
        EXPECT_EQ(&ec.category(), &option_error_category()) << name;
        EXPECT_EQ(ec.value(), static_cast<int>(e)) << name;
        if (e == option_error::none) {
            EXPECT_FALSE(ec);
            continue;
        }
        EXPECT_TRUE(ec) << name;
        EXPECT_EQ(ec, std::errc::invalid_argument) << name;
        EXPECT_FALSE(ec.message().empty()) << name;
    }
    EXPECT_EQ(option_error_name(static_cast<option_error>(errors.size())), "unknown");
    EXPECT_STREQ(option_error_category().name(), "inputanim.options");
}

TEST(Error, PlaceNames) {
    const std::vector<std::pair<error_place, std::string_view>> places = {
        {error_place::none, "none"},       {error_place::header, "header"},
        {error_place::curve, "curve"},     {error_place::markers, "markers"},
        {error_place::trailer, "trailer"},
    };
    for (const auto& [place, name] : places) {
        EXPECT_EQ(place_name(place), name);
        EXPECT_EQ(parse_place_name(name), place) << name;
    }
    EXPECT_EQ(place_name(static_cast<error_place>(places.size())), "unknown");
}

TEST(Error, WarningNames) {
    const std::vector<std::pair<warning_code, std::string_view>> warnings = {
        {warning_code::dropped_rotation_w, "dropped_rotation_w"},
        {warning_code::non_unit_quaternion, "non_unit_quaternion"},
        {warning_code::negative_time, "negative_time"},
    };
    for (const auto& [code, name] : warnings) {
        EXPECT_EQ(warning_name(code), name);
        EXPECT_EQ(parse_warning_name(name), code) << name;
    }
    EXPECT_EQ(warning_name(static_cast<warning_code>(warnings.size())), "unknown");
}

TEST(Error, LayoutNames) {
    EXPECT_EQ(layout_name(layout::compact), "compact");
    EXPECT_EQ(layout_name(layout::full), "full");
    EXPECT_EQ(parse_layout_name("compact"), layout::compact);
    EXPECT_EQ(parse_layout_name("full"), layout::full);
}

TEST(Error, LayoutChoiceNamesAreTheOptionsValues) {
    EXPECT_EQ(layout_choice_name(layout_choice::automatic), "auto");
    EXPECT_EQ(layout_choice_name(layout_choice::compact), "compact");
    EXPECT_EQ(layout_choice_name(layout_choice::full), "full");
    EXPECT_EQ(parse_layout_choice_name("auto"), layout_choice::automatic);
    EXPECT_EQ(parse_layout_choice_name("compact"), layout_choice::compact);
    EXPECT_EQ(parse_layout_choice_name("full"), layout_choice::full);
}

TEST(Error, LevelNamesAreTheOptionsValues) {
    static_assert(level_name(level::structure) == "structure");
    static_assert(parse_level_name("full") == level::full);
    EXPECT_EQ(level_name(level::structure), "structure");
    EXPECT_EQ(level_name(level::full), "full");
    EXPECT_EQ(parse_level_name("structure"), level::structure);
    EXPECT_EQ(parse_level_name("full"), level::full);
}

TEST(Error, MessageSaysWhereThenWhat) {
    error e{errc::unsorted_keys, 120, error_place::curve, camera_curve(pose_channel::position_x),
            2};
    EXPECT_EQ(e.message(),
              "at byte 120, curve camera.position.x keyframe 2: key time is not greater than the "
              "previous key's");
    e = error{errc::bad_utf8, 40, error_place::markers, {}, 1};
    EXPECT_EQ(e.message(), "at byte 40, marker list marker 1: marker name is not valid UTF-8");
    e = error{errc::bad_magic, 0, error_place::header};
    EXPECT_EQ(e.message(),
              "at byte 0, header: not an MRTK input animation file (wrong magic number)");
    e = error{errc::limit_exceeded, 0, error_place::header, {}, -1, limit_kind::bytes};
    EXPECT_EQ(e.message(), "at byte 0, header: a configured limit was passed (max_bytes)");
    e = error{errc::trailing_bytes, 99, error_place::trailer};
    EXPECT_EQ(e.message(), "at byte 99: bytes follow the end of the marker list");
    EXPECT_EQ(error{}.message(), "no error");
}

TEST(Error, OptionErrorsHaveOneMessageEachAndAreInvalidArguments) {
    const std::optional<std::errc> invalid = std::errc::invalid_argument;
    expect_category<option_error>(
        option_error_category(), "inputanim.options",
        {
            {option_error::none, "no error", {}},
            {option_error::bad_version, "the target version must be 1.0 or 1.1 (minor 0 or 1)",
             invalid},
            {option_error::bad_layout, "unknown layout", invalid},
            {option_error::window_not_finite, "the window's ends must be finite times", invalid},
            {option_error::window_reversed, "the window starts after it ends", invalid},
            {option_error::bad_position_tolerance,
             "the position tolerance must be a finite number >= 0", invalid},
            {option_error::bad_rotation_tolerance,
             "the rotation tolerance must be between 0 and 180 degrees", invalid},
            {option_error::bad_partition, "the partition must be >= 0", invalid},
            {option_error::bad_seconds, "seconds must be a finite number >= 0", invalid},
            {option_error::bad_rate, "rate must be a finite number > 0", invalid},
            {option_error::too_many_samples, "seconds x rate must be below 2^31 - 1 samples",
             invalid},
            {option_error::rate_too_high,
             "rate too high for the duration: float32 key times would not increase", invalid},
            {option_error::bad_markers, "markers must be >= 0", invalid},
            {option_error::bad_time_tolerance, "the time tolerance must be a finite number >= 0",
             invalid},
            {option_error::bad_offset, "the offset must be a finite number", invalid},
        });
}

TEST(Error, GridErrorsHaveOneMessageEachAndNoStandardCondition) {
    expect_category<grid_error>(
        grid_error_category(), "inputanim.grid",
        {
            {grid_error::none, "no error", {}},
            {grid_error::bad_rate,
             "the rate is not a positive finite number with a finite step 1 / rate",
             {}},
            {grid_error::bad_time,
             "a time bound is not finite or lies outside the float range",
             {}},
            {grid_error::no_keys, "a time bound was left to the recording, which has no keys", {}},
            {grid_error::too_many_rows,
             "the grid has more rows than allowed (at most 2^52 points)",
             {}},
        });
}

TEST(Error, AlignErrorsHaveOneMessageEachAndNoStandardCondition) {
    expect_category<align_error>(
        align_error_category(), "inputanim.align",
        {
            {align_error::none, "no error", {}},
            {align_error::no_head, "a recording has no head (no camera block) to align by", {}},
            {align_error::too_flat, "the head's motion is too short or too flat to align by", {}},
            {align_error::too_long, "the two takes hold more grid rows than alignment allows", {}},
            {align_error::no_match,
             "no offset makes the two heads' motions alike (correlation below 0.5)",
             {}},
        });
}

TEST(Error, MetricsErrorsHaveOneMessageEachAndNoStandardCondition) {
    expect_category<metrics_error>(
        metrics_error_category(), "inputanim.metrics",
        {
            {metrics_error::none, "no error", {}},
            {metrics_error::bad_joint, "the joint is not one of MRTK's joints", {}},
            {metrics_error::bad_fixation_velocity,
             "the fixation velocity is negative or not finite",
             {}},
            {metrics_error::bad_merge_gap, "the merge gap is negative or not finite", {}},
            {metrics_error::bad_merge_angle, "the merge angle is negative or not finite", {}},
            {metrics_error::bad_min_fixation,
             "the minimum fixation duration is negative or not finite",
             {}},
            {metrics_error::shared_times,
             "consecutive grid points share a float32 time (the recording's times are too far "
             "from 0 for this rate)",
             {}},
        });
}

TEST(Error, ExportErrorsHaveOneMessageEachAndNoStandardCondition) {
    expect_category<export_error>(
        export_error_category(), "inputanim.export",
        {
            {export_error::none, "no error", {}},
            {export_error::empty_window,
             "the time window holds no grid point of the recording",
             {}},
            {export_error::too_large, "the export would be larger than allowed", {}},
            {export_error::window_not_supported,
             "a Unity clip carries the recording's keys as they are: no time window",
             {}},
            {export_error::not_finite, "a number glTF would hold is not finite", {}},
            {export_error::time_overflow,
             "shifted to start at 0, the grid's times would pass the largest float",
             {}},
            {export_error::glb_too_large, "a .glb holds at most 4 GiB", {}},
        });
}

TEST(Error, ConvertErrorsHaveOneMessageEachAndOnlyTheShiftIsOutOfRange) {
    expect_category<convert_error>(
        convert_error_category(), "inputanim.convert",
        {
            {convert_error::none, "no error", {}},
            // Not std::errc::illegal_byte_sequence, which is about character encodings.
            {convert_error::cannot_frame, "the bytes do not frame as a v1 recording", {}},
            {convert_error::shift_out_of_range,
             "shifted to start at 0, a key or marker time would pass the largest float",
             std::errc::result_out_of_range},
        });
}

TEST(Error, EncoderErrorsHaveOneMessageEachAndAreValuesTooLarge) {
    const std::optional<std::errc> too_large = std::errc::value_too_large;
    expect_category<encoder_error>(
        encoder_error_category(), "inputanim.encoder",
        {
            {encoder_error::none, "no error", {}},
            {encoder_error::too_many_keys,
             "a curve has more keys than the format's Int32 count holds", too_large},
            {encoder_error::too_many_markers,
             "there are more markers than the format's Int32 count holds", too_large},
            {encoder_error::name_too_long,
             "a marker name is longer than the format's Int32 length holds", too_large},
        });
}

// A value that is no code of its category (below the first, after the last, past the
// enumeration's underlying type, where a cast would wrap onto a real code) has the category's
// unknown message, never a code's (the input layer's category: test_input_errors).
TEST(Error, AValueThatIsNoCodeHasTheUnknownMessageInEveryCategory) {
    const std::vector<std::tuple<const std::error_category*, int, std::string_view>> categories = {
        {&error_category(), static_cast<int>(errc::ratio_exceeded) + 1, "unknown error"},
        {&option_error_category(), static_cast<int>(option_error::bad_offset) + 1,
         "unknown option error"},
        {&grid_error_category(), static_cast<int>(grid_error::too_many_rows) + 1, "unknown error"},
        {&align_error_category(), static_cast<int>(align_error::no_match) + 1, "unknown error"},
        {&metrics_error_category(), static_cast<int>(metrics_error::shared_times) + 1,
         "unknown error"},
        {&export_error_category(), static_cast<int>(export_error::glb_too_large) + 1,
         "unknown error"},
        {&convert_error_category(), static_cast<int>(convert_error::shift_out_of_range) + 1,
         "unknown error"},
        {&encoder_error_category(), static_cast<int>(encoder_error::name_too_long) + 1,
         "unknown error"},
    };
    for (const auto& [category, after_last, unknown] : categories) {
        for (const int value : {-1, after_last, 255, 256, 256 + 1, std::numeric_limits<int>::max(),
                                std::numeric_limits<int>::min()}) {
            EXPECT_EQ(category->message(value), unknown) << category->name() << " " << value;
        }
    }
}

TEST(Error, EveryCategoryHasItsOwnName) {
    const std::vector<const std::error_category*> categories = {
        &error_category(),         &option_error_category(), &grid_error_category(),
        &metrics_error_category(), &export_error_category(), &convert_error_category(),
        &encoder_error_category(), &align_error_category(),
    };
    std::set<std::string_view> names;
    for (const std::error_category* c : categories) {
        EXPECT_TRUE(names.insert(c->name()).second) << c->name();
        EXPECT_TRUE(std::string_view(c->name()).starts_with("inputanim")) << c->name();
    }
}

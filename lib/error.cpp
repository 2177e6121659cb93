#include "inputanim/error.hpp"

#include <string>

#include "inputanim/detail/codes.hpp"
#include "inputanim/detail/names.hpp"

namespace inputanim {

namespace {

// Every errc: its stable name and its description.
constexpr detail::code_row<errc> errc_rows[] = {
    {errc::ok, "ok", "no error"},
    {errc::truncated, "truncated", "the file ends before this field"},
    {errc::bad_magic, "bad_magic", "not an MRTK input animation file (wrong magic number)"},
    {errc::unsupported_version, "unsupported_version",
     "unsupported version (only 1.0 and 1.1 exist)"},
    {errc::bad_flag, "bad_flag", "a v1.1 block flag is neither 0 nor 1"},
    {errc::bad_wrap_mode, "bad_wrap_mode", "wrap mode is not one of 0, 1, 2, 4, 8"},
    {errc::negative_count, "negative_count", "the count is negative"},
    {errc::bad_marker, "bad_marker",
     "marker name length is not a valid 7-bit encoded length (over 5 bytes or above 2^31-1)"},
    {errc::trailing_bytes, "trailing_bytes", "bytes follow the end of the marker list"},
    {errc::limit_exceeded, "limit_exceeded", "a configured limit was passed"},
    {errc::non_finite, "non_finite", "the value is not finite"},
    {errc::bad_bool_value, "bad_bool_value", "a bool keyframe's value is neither 0.0 nor 1.0"},
    {errc::bad_weighted_mode, "bad_weighted_mode", "weighted mode is not 0-3"},
    {errc::unsorted_keys, "unsorted_keys", "key time is not greater than the previous key's"},
    {errc::bad_utf8, "bad_utf8", "marker name is not valid UTF-8"},
    {errc::bad_compression, "bad_compression",
     "the compressed bytes cannot be inflated (a gzip stream or a zip member: bad header, bad "
     "data, bad CRC or length, or cut short)"},
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
     "the member inflates to more than the allowed multiple of its compressed size (--max-ratio)"},
};
constexpr detail::code_table<errc> errc_codes{errc_rows, "unknown error"};

}  // namespace

std::string_view error_name(errc code) noexcept {
    return errc_codes.name(code);
}

std::string_view limit_name(limit_kind kind) noexcept {
    switch (kind) {
        case limit_kind::none:
            return "none";
        case limit_kind::bytes:
            return "max_bytes";
        case limit_kind::keyframes_per_curve:
            return "max_keyframes_per_curve";
        case limit_kind::total_keyframes:
            return "max_total_keyframes";
        case limit_kind::markers:
            return "max_markers";
        case limit_kind::marker_name_bytes:
            return "max_marker_name_bytes";
    }
    return detail::unknown_name;
}

std::optional<errc> parse_error_name(std::string_view name) noexcept {
    return errc_codes.parse(name);
}

std::optional<limit_kind> parse_limit_name(std::string_view name) noexcept {
    return detail::parse_name<limit_kind>(name, limit_name);
}

std::string_view place_name(error_place place) noexcept {
    switch (place) {
        case error_place::none:
            return "none";
        case error_place::header:
            return "header";
        case error_place::curve:
            return "curve";
        case error_place::markers:
            return "markers";
        case error_place::trailer:
            return "trailer";
    }
    return detail::unknown_name;
}

std::optional<error_place> parse_place_name(std::string_view name) noexcept {
    return detail::parse_name<error_place>(name, place_name);
}

std::string_view error::path() const noexcept {
    switch (place) {
        case error_place::curve:
            return curve_path(curve);
        case error_place::markers:
            return "markers";
        case error_place::none:
        case error_place::header:
        case error_place::trailer:
            return {};
    }
    return {};
}

std::string_view error_description(errc code) noexcept {
    return errc_codes.message(static_cast<long long>(code));
}

const std::error_category& error_category() noexcept {
    static const detail::code_category<errc> category("inputanim", errc_codes);
    return category;
}

std::error_code make_error_code(errc code) noexcept {
    return {static_cast<int>(code), error_category()};
}

namespace {

constexpr detail::code_row<option_error> option_rows[] = {
    {option_error::none, "none", "no error"},
    {option_error::bad_version, "bad_version",
     "the target version must be 1.0 or 1.1 (minor 0 or 1)"},
    {option_error::bad_layout, "bad_layout", "unknown layout"},
    {option_error::window_not_finite, "window_not_finite",
     "the window's ends must be finite times"},
    {option_error::window_reversed, "window_reversed", "the window starts after it ends"},
    {option_error::bad_position_tolerance, "bad_position_tolerance",
     "the position tolerance must be a finite number >= 0"},
    {option_error::bad_rotation_tolerance, "bad_rotation_tolerance",
     "the rotation tolerance must be between 0 and 180 degrees"},
    {option_error::bad_partition, "bad_partition", "the partition must be >= 0"},
    {option_error::bad_seconds, "bad_seconds", "seconds must be a finite number >= 0"},
    {option_error::bad_rate, "bad_rate", "rate must be a finite number > 0"},
    {option_error::too_many_samples, "too_many_samples",
     "seconds x rate must be below 2^31 - 1 samples"},
    {option_error::rate_too_high, "rate_too_high",
     "rate too high for the duration: float32 key times would not increase"},
    {option_error::bad_markers, "bad_markers", "markers must be >= 0"},
    {option_error::bad_time_tolerance, "bad_time_tolerance",
     "the time tolerance must be a finite number >= 0"},
    {option_error::bad_offset, "bad_offset", "the offset must be a finite number"},
};
constexpr detail::code_table<option_error> option_codes{option_rows, "unknown option error"};

// Every problem is an invalid argument to the function given the options.
class option_category final : public detail::code_category<option_error> {
  public:
    using code_category::code_category;
    std::error_condition default_error_condition(int value) const noexcept override {
        if (value == 0) return {};
        return std::errc::invalid_argument;
    }
};

}  // namespace

std::string_view option_error_name(option_error e) noexcept {
    return option_codes.name(e);
}

const std::error_category& option_error_category() noexcept {
    static const option_category category("inputanim.options", option_codes);
    return category;
}

std::error_code make_error_code(option_error e) noexcept {
    return {static_cast<int>(e), option_error_category()};
}

std::string error::message() const {
    std::string m;
    if (code == errc::ok) return std::string(error_description(code));
    m += "at byte ";
    m += std::to_string(offset);
    if (place == error_place::curve) {
        m += ", curve ";
        m += curve_path(curve);
        if (index >= 0) {
            m += " keyframe ";
            m += std::to_string(index);
        }
    } else if (place == error_place::markers) {
        m += ", marker list";
        if (index >= 0) {
            m += " marker ";
            m += std::to_string(index);
        }
    } else if (place == error_place::header) {
        m += ", header";
    }
    m += ": ";
    m += error_description(code);
    if (code == errc::limit_exceeded) {
        m += " (";
        m += limit_name(limit);
        m += ")";
    }
    return m;
}

}  // namespace inputanim

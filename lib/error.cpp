#include "inputanim/error.hpp"

#include <limits>
#include <string>
#include <type_traits>

#include "inputanim/detail/names.hpp"

namespace inputanim {

std::string_view error_name(errc code) noexcept {
    switch (code) {
        case errc::ok:
            return "ok";
        case errc::truncated:
            return "truncated";
        case errc::bad_magic:
            return "bad_magic";
        case errc::unsupported_version:
            return "unsupported_version";
        case errc::bad_flag:
            return "bad_flag";
        case errc::bad_wrap_mode:
            return "bad_wrap_mode";
        case errc::negative_count:
            return "negative_count";
        case errc::bad_marker:
            return "bad_marker";
        case errc::trailing_bytes:
            return "trailing_bytes";
        case errc::limit_exceeded:
            return "limit_exceeded";
        case errc::non_finite:
            return "non_finite";
        case errc::bad_bool_value:
            return "bad_bool_value";
        case errc::bad_weighted_mode:
            return "bad_weighted_mode";
        case errc::unsorted_keys:
            return "unsorted_keys";
        case errc::bad_utf8:
            return "bad_utf8";
        case errc::bad_compression:
            return "bad_compression";
        case errc::io_error:
            return "io_error";
        case errc::archive_truncated:
            return "archive_truncated";
        case errc::archive_damaged:
            return "archive_damaged";
        case errc::header_too_large:
            return "header_too_large";
        case errc::member_past_end:
            return "member_past_end";
        case errc::header_mismatch:
            return "header_mismatch";
        case errc::overlapping_members:
            return "overlapping_members";
        case errc::encrypted_member:
            return "encrypted_member";
        case errc::unsupported_method:
            return "unsupported_method";
        case errc::too_many_members:
            return "too_many_members";
        case errc::archive_too_large:
            return "archive_too_large";
        case errc::ratio_exceeded:
            return "ratio_exceeded";
    }
    return detail::unknown_name;
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
    return detail::parse_name<errc>(name, error_name);
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
    switch (code) {
        case errc::ok:
            return "no error";
        case errc::truncated:
            return "the file ends before this field";
        case errc::bad_magic:
            return "not an MRTK input animation file (wrong magic number)";
        case errc::unsupported_version:
            return "unsupported version (only 1.0 and 1.1 exist)";
        case errc::bad_flag:
            return "a v1.1 block flag is neither 0 nor 1";
        case errc::bad_wrap_mode:
            return "wrap mode is not one of 0, 1, 2, 4, 8";
        case errc::negative_count:
            return "the count is negative";
        case errc::bad_marker:
            return "marker name length is not a valid 7-bit encoded length (over 5 bytes or "
                   "above 2^31-1)";
        case errc::trailing_bytes:
            return "bytes follow the end of the marker list";
        case errc::limit_exceeded:
            return "a configured limit was passed";
        case errc::non_finite:
            return "the value is not finite";
        case errc::bad_bool_value:
            return "a bool keyframe's value is neither 0.0 nor 1.0";
        case errc::bad_weighted_mode:
            return "weighted mode is not 0-3";
        case errc::unsorted_keys:
            return "key time is not greater than the previous key's";
        case errc::bad_utf8:
            return "marker name is not valid UTF-8";
        case errc::bad_compression:
            return "the compressed bytes cannot be inflated (a gzip stream or a zip member: bad "
                   "header, "
                   "bad data, bad CRC or length, or cut short)";
        case errc::io_error:
            return "the input could not be read whole (a page of the mapping vanished)";
        case errc::archive_truncated:
            return "the archive ends inside a header or a member's bytes";
        case errc::archive_damaged:
            return "an archive header does not parse (a tar header whose checksum or fields are "
                   "wrong, a zip record that is not one)";
        case errc::header_too_large:
            return "an archive's extended header (pax, GNU long name) is larger than 1 MiB";
        case errc::member_past_end:
            return "the member's bytes would end past the archive's end";
        case errc::header_mismatch:
            return "the member's zip local header disagrees with the central directory, which is "
                   "trusted";
        case errc::overlapping_members:
            return "the member's bytes overlap another member's (a zip bomb's trick)";
        case errc::encrypted_member:
            return "the member is encrypted";
        case errc::unsupported_method:
            return "the member is compressed by a method other than stored and deflate";
        case errc::too_many_members:
            return "the archive holds more members than allowed (--max-members)";
        case errc::archive_too_large:
            return "the archive's members inflate to more bytes than allowed (--max-archive-bytes)";
        case errc::ratio_exceeded:
            return "the member inflates to more than the allowed multiple of its compressed size "
                   "(--max-ratio)";
    }
    return "unknown error";
}

namespace {

class category final : public std::error_category {
  public:
    const char* name() const noexcept override { return "inputanim"; }
    std::string message(int value) const override {
        // A value beyond the enumeration's type would wrap onto a real code.
        if (value < 0 || value > std::numeric_limits<std::underlying_type_t<errc>>::max()) {
            return "unknown error";
        }
        return std::string(error_description(static_cast<errc>(value)));
    }
};

}  // namespace

const std::error_category& error_category() noexcept {
    static const category instance;
    return instance;
}

std::error_code make_error_code(errc code) noexcept {
    return {static_cast<int>(code), error_category()};
}

std::string_view option_error_name(option_error e) noexcept {
    switch (e) {
        case option_error::none:
            return "none";
        case option_error::bad_version:
            return "bad_version";
        case option_error::bad_layout:
            return "bad_layout";
        case option_error::window_not_finite:
            return "window_not_finite";
        case option_error::window_reversed:
            return "window_reversed";
        case option_error::bad_position_tolerance:
            return "bad_position_tolerance";
        case option_error::bad_rotation_tolerance:
            return "bad_rotation_tolerance";
        case option_error::bad_partition:
            return "bad_partition";
        case option_error::bad_seconds:
            return "bad_seconds";
        case option_error::bad_rate:
            return "bad_rate";
        case option_error::too_many_samples:
            return "too_many_samples";
        case option_error::rate_too_high:
            return "rate_too_high";
        case option_error::bad_markers:
            return "bad_markers";
    }
    return detail::unknown_name;
}

namespace {

std::string_view option_error_description(option_error e) noexcept {
    switch (e) {
        case option_error::none:
            return "no error";
        case option_error::bad_version:
            return "the target version must be 1.0 or 1.1 (minor 0 or 1)";
        case option_error::bad_layout:
            return "unknown layout";
        case option_error::window_not_finite:
            return "the window's ends must be finite times";
        case option_error::window_reversed:
            return "the window starts after it ends";
        case option_error::bad_position_tolerance:
            return "the position tolerance must be a finite number >= 0";
        case option_error::bad_rotation_tolerance:
            return "the rotation tolerance must be between 0 and 180 degrees";
        case option_error::bad_partition:
            return "the partition must be >= 0";
        case option_error::bad_seconds:
            return "seconds must be a finite number >= 0";
        case option_error::bad_rate:
            return "rate must be a finite number > 0";
        case option_error::too_many_samples:
            return "seconds x rate must be below 2^31 - 1 samples";
        case option_error::rate_too_high:
            return "rate too high for the duration: float32 key times would not increase";
        case option_error::bad_markers:
            return "markers must be >= 0";
    }
    return "unknown option error";
}

class option_category final : public std::error_category {
  public:
    const char* name() const noexcept override { return "inputanim.options"; }
    std::string message(int value) const override {
        if (value < 0 || value > std::numeric_limits<std::underlying_type_t<option_error>>::max()) {
            return "unknown option error";
        }
        return std::string(option_error_description(static_cast<option_error>(value)));
    }
    // Every problem is an invalid argument to the function given the options.
    std::error_condition default_error_condition(int value) const noexcept override {
        if (value == 0) return {};
        return std::errc::invalid_argument;
    }
};

}  // namespace

const std::error_category& option_error_category() noexcept {
    static const option_category instance;
    return instance;
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

// Error codes and the error value. Code, limit and place names are stable API: they appear in
// JSON and databases. An errc is also a std::error_code of the category named "inputanim".
//
// The library's error categories (docs/DESIGN.md, "Errors"). Each code has one meaning, and is
// equivalent to a std::errc condition only where it means what POSIX means by it:
//
//   category                    values         header        std::errc condition
//   inputanim                   errc           error.hpp     none
//   inputanim.options           option_error   error.hpp     invalid_argument
//   inputanim.grid              grid_error     evaluate.hpp  none
//   inputanim.metrics           metrics_error  metrics.hpp   none
//   inputanim.export            export_error   export.hpp    none
//   inputanim.convert           convert_error  convert.hpp   result_out_of_range (the shift's)
//   inputanim.encoder           encoder_error  writer.hpp    value_too_large
//   inputanim.not_regular_file  S_IFMT bits    input.hpp     none
//   inputanim.import            import_error   import.hpp    none (the importers, import/)
//
// errc: the bytes break the format, or the input or archive around them is damaged (the verdicts
// of validate and the readers). option_error: an option of convert, generate or a thinning is out
// of range. grid_error: a time grid is refused. metrics_error: an option of measure, or times it
// cannot step through. export_error: an export is refused. convert_error: a conversion stops for a
// reason of its own (bytes it cannot frame, a shift past the largest float). encoder_error: a
// count or a name length past the format's Int32. not_regular_file: an input refused for its type.
// import_error: a file of another format (a Unity clip, glTF, CSV) that cannot become a recording.
// Every other failure is a std::errc, or the system's errno, in its POSIX meaning: a file that
// cannot be opened, memory refused (not_enough_memory), a read that failed or came up short
// (io_error), a directory where a file was wanted (is_a_directory), a call out of order or an
// argument the function does not take (invalid_argument).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "inputanim/format.hpp"

namespace inputanim {

enum class errc : std::uint8_t {
    ok,
    // structure (FORMAT.md section 6)
    truncated,
    bad_magic,
    unsupported_version,
    bad_flag,
    bad_wrap_mode,
    negative_count,
    bad_marker,
    trailing_bytes,
    limit_exceeded,
    // content (level full)
    non_finite,
    bad_bool_value,
    bad_weighted_mode,
    unsorted_keys,
    bad_utf8,
    // input (not the recording's format): a gzip stream that cannot be inflated (FORMAT.md,
    // "Compressed input"; the offset is in the compressed bytes), and bytes that could not be
    // read whole (a page of a mapping vanished under a concurrent truncation): no verdict.
    bad_compression,
    io_error,
    // archive (docs/ARCHIVES.md): the container around a member is damaged, or passes a budget
    // of the archive's (archive.hpp, archive_limits); the offset is the archive's.
    archive_truncated,
    archive_damaged,
    header_too_large,
    member_past_end,
    header_mismatch,
    overlapping_members,
    encrypted_member,
    unsupported_method,
    too_many_members,
    archive_too_large,
    ratio_exceeded,
};

// The stable name of a code: "truncated", "bad_magic", ...
std::string_view error_name(errc code) noexcept;
// The code a stable name names, if any (exact match).
std::optional<errc> parse_error_name(std::string_view name) noexcept;
// What the code means, for a person: "the file ends before this field". Also the message of the
// code's std::error_code.
std::string_view error_description(errc code) noexcept;

// The category of errc as std::error_code: name() "inputanim", message() the description.
const std::error_category& error_category() noexcept;
// errc::ok converts to a code that is false.
std::error_code make_error_code(errc code) noexcept;

// Content errors are found only by level full; the rest by the structure walk.
constexpr bool is_structural(errc code) noexcept {
    return code != errc::ok && code < errc::non_finite;
}
constexpr bool is_content(errc code) noexcept {
    return code >= errc::non_finite && code <= errc::bad_utf8;
}
// The codes of an archive around the recording, whose offset is the archive's.
constexpr bool is_archive_fault(errc code) noexcept {
    return code >= errc::archive_truncated && code <= errc::ratio_exceeded;
}

// What is wrong with the options of convert(), generate() or a thinning, as their problem() says:
// a std::error_code of the category named "inputanim.options", equivalent to
// std::errc::invalid_argument; none is a false code.
enum class option_error : std::uint8_t {
    none,
    // minor is neither 0 (version 1.0) nor 1 (1.1).
    bad_version,
    bad_layout,
    // convert's window: an end that is not finite, or from after to.
    window_not_finite,
    window_reversed,
    // thinning: a position tolerance negative or not finite, a rotation tolerance outside
    // [0, 180] degrees, a negative partition.
    bad_position_tolerance,
    bad_rotation_tolerance,
    bad_partition,
    // generate: a duration negative or not finite, a rate not above 0 or not finite, 2^31 - 1
    // samples or more, steps float32 key times cannot keep increasing, a negative marker count.
    bad_seconds,
    bad_rate,
    too_many_samples,
    rate_too_high,
    bad_markers,
    // compare: a time tolerance negative or not finite; an offset not finite.
    bad_time_tolerance,
    bad_offset,
};
// "bad_version", "window_reversed", ...
std::string_view option_error_name(option_error e) noexcept;
const std::error_category& option_error_category() noexcept;
std::error_code make_error_code(option_error e) noexcept;

// Which configured limit a `limit_exceeded` error passed.
enum class limit_kind : std::uint8_t {
    none,
    bytes,
    keyframes_per_curve,
    total_keyframes,
    markers,
    marker_name_bytes
};
// "max_bytes", "max_markers", ... ("none" for limit_kind::none), as the CLI's flags say.
std::string_view limit_name(limit_kind kind) noexcept;
std::optional<limit_kind> parse_limit_name(std::string_view name) noexcept;

// Where in the file an error sits.
enum class error_place : std::uint8_t { none, header, curve, markers, trailer };
// "none", "header", "curve", "markers", "trailer".
std::string_view place_name(error_place place) noexcept;
std::optional<error_place> parse_place_name(std::string_view name) noexcept;

struct error {
    errc code = errc::ok;
    // Byte offset of the offending field from the start of the file.
    std::uint64_t offset = 0;
    error_place place = error_place::none;
    // The curve, when place == curve.
    curve_id curve{};
    // Keyframe index (place == curve) or marker index (place == markers); -1 when the error is
    // not about one keyframe or marker.
    std::int64_t index = -1;
    limit_kind limit = limit_kind::none;

    explicit operator bool() const noexcept { return code != errc::ok; }

    // "camera.position.x", "markers", or "" for the header and trailer.
    std::string_view path() const noexcept;
    // Where and what, for a person: "at byte <offset>[, <where>]: <description>[ (<limit>)]",
    // where <where> is "header", "curve <path>[ keyframe <index>]" or "marker list[ marker
    // <index>]", and the limit's name follows the description of limit_exceeded; for errc::ok,
    // the description alone. Such as "at byte 120, curve camera.position.x keyframe 2: key time
    // is not greater than the previous key's". Allocates: call it when reporting, not walking.
    std::string message() const;

    friend bool operator==(const error&, const error&) = default;
};

}  // namespace inputanim

template <>
struct std::is_error_code_enum<inputanim::errc> : std::true_type {};
template <>
struct std::is_error_code_enum<inputanim::option_error> : std::true_type {};

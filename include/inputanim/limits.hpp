// The ceilings on untrusted input: `limits`, the table of them (`limit_fields`, in the order the
// command's help, the JSON report and Python keep) and the ceilings recommended for uploads. The
// reader, the validators, the archive reader and every tool take them from here.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include "inputanim/error.hpp"

namespace inputanim {

// Configurable ceilings for untrusted input; passing one is `limit_exceeded`.
struct limits {
    std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max();
    std::uint32_t max_keyframes_per_curve = std::numeric_limits<std::int32_t>::max();
    std::uint64_t max_total_keyframes = std::numeric_limits<std::uint64_t>::max();
    std::uint32_t max_markers = std::numeric_limits<std::int32_t>::max();
    std::uint32_t max_marker_name_bytes = std::numeric_limits<std::int32_t>::max();
};

// One row of the table of limits: the ceiling of kind `kind` (limit_name gives its name, as the
// command's flag, the JSON report and Python's dict spell it), read and set through `get` and
// `set`, holding at most `largest`, and checking nothing at `unset`, its default, or above.
struct limit_field {
    limit_kind kind;
    std::uint64_t (*get)(const limits&) noexcept;
    // `value` must be at most `largest`.
    void (*set)(limits&, std::uint64_t value) noexcept;
    std::uint64_t largest;
    std::uint64_t unset;
    // What the ceiling bounds, for a person: "Most markers accepted".
    std::string_view description;
};

namespace detail {

template <auto member>
constexpr limit_field make_limit_field(limit_kind kind, std::string_view description) noexcept {
    using value_type = std::remove_cvref_t<decltype(limits{}.*member)>;
    return {
        kind,
        [](const limits& l) noexcept -> std::uint64_t { return l.*member; },
        [](limits& l, std::uint64_t value) noexcept { l.*member = static_cast<value_type>(value); },
        std::numeric_limits<value_type>::max(),
        limits{}.*member,
        description};
}

}  // namespace detail

// The five limits, in limit_kind's order, which the command's help, the JSON report and Python
// keep.
inline constexpr std::array<limit_field, 5> limit_fields{
    detail::make_limit_field<&limits::max_bytes>(limit_kind::bytes,
                                                 "Largest accepted file size in bytes"),
    detail::make_limit_field<&limits::max_keyframes_per_curve>(
        limit_kind::keyframes_per_curve, "Most keyframes accepted in one curve"),
    detail::make_limit_field<&limits::max_total_keyframes>(
        limit_kind::total_keyframes, "Most keyframes accepted in the whole file"),
    detail::make_limit_field<&limits::max_markers>(limit_kind::markers, "Most markers accepted"),
    detail::make_limit_field<&limits::max_marker_name_bytes>(
        limit_kind::marker_name_bytes, "Longest accepted marker name in bytes"),
};
static_assert(
    [] {
        for (std::size_t i = 0; i < limit_fields.size(); ++i) {
            if (limit_fields[i].kind != static_cast<limit_kind>(i + 1)) return false;
        }
        return true;
    }(),
    "limit_fields lists the limits in limit_kind's order");

// The ceilings recommended for validating uploads from strangers; docs/SECURITY.md gives the
// reason for each. The default `limits{}` sets none.
constexpr limits upload_limits() noexcept {
    limits l;
    l.max_bytes = std::uint64_t{64} << 20;
    l.max_keyframes_per_curve = std::uint32_t{1} << 18;
    l.max_total_keyframes = std::uint64_t{1} << 21;
    l.max_markers = 4096;
    l.max_marker_name_bytes = 1024;
    return l;
}

}  // namespace inputanim

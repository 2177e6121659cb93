// Why an export was refused, said the one way by the command, the Python package and the viewer's
// export route: the library's export_result (inputanim/export.hpp) in words, with the names under
// which each edge takes the options (`--max-output-bytes` or `max_bytes`, ...).
#pragma once

#include <string>
#include <string_view>

#include "inputanim/export.hpp"

namespace inputanim::tools {

// How an edge names the options an export refusal points at.
struct export_option_names {
    std::string_view max_bytes;
    std::string_view rate;
    std::string_view from;
    std::string_view to;
};

inline constexpr export_option_names cli_export_names{"--max-output-bytes", "--rate", "--from",
                                                      "--to-time"};
inline constexpr export_option_names python_export_names{"max_bytes", "rate", "start", "stop"};

// What was refused, whose it is.
enum class export_refusal_kind : std::uint8_t {
    // The options ask for what cannot be written: the size over the ceiling or the format's
    // limit, a grid of 2^52 points or more, a bad rate, an empty window, a window for a clip
    // (the command's exit status 2).
    options,
    // The recording holds what the format cannot: a number glTF cannot hold, times that overflow
    // once shifted to 0, no keys or key times that are not finite for a default window (exit 1).
    recording,
};

struct export_refusal {
    export_refusal_kind kind = export_refusal_kind::options;
    std::string message;
};

// The refusal `r` (an error of the export_error or grid_error category) describes, for an export
// with options `o`. `r` must hold one of those errors.
export_refusal describe_export_refusal(const export_result& r, const export_options& o,
                                       const export_option_names& names);

// Whether `r`'s error is a refusal (export or grid category), not the sink's or the system's.
bool is_export_refusal(const export_result& r) noexcept;

}  // namespace inputanim::tools

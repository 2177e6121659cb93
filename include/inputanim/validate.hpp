// Validation (FORMAT.md section 6): the structure pass is the reader's walk; level full then
// checks every keyframe and marker in file order. Reports the first error and the warnings.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "inputanim/detail/names.hpp"
#include "inputanim/recording.hpp"

namespace inputanim {

enum class level : std::uint8_t { structure, full };
// "structure", "full", as the --level option takes them.
constexpr std::string_view level_name(inputanim::level l) noexcept {
    switch (l) {
        case level::structure:
            return "structure";
        case level::full:
            return "full";
    }
    return detail::unknown_name;
}
constexpr std::optional<inputanim::level> parse_level_name(std::string_view name) noexcept {
    return detail::parse_name<inputanim::level>(name, level_name);
}

// The version of the validity rules: raised whenever a change to the library can change the
// report validate() gives for some bytes under the same options (a new rule, a changed limit
// check, a new warning). Stored verdicts made under another version are stale (docs/VALIDATION.md).
inline constexpr int rules_version = 2;

struct validate_options {
    inputanim::level level = level::full;
    layout_choice layout = layout_choice::automatic;
    inputanim::limits limits{};
    // Threads for level full's content checks of a large input (0: one per core). The report
    // is the same whatever the number; only inputs of at least twice `min_part_bytes` are split
    // (one core cannot read memory as fast as several, but starting a thread costs).
    unsigned threads = 1;
    std::uint64_t min_part_bytes = std::uint64_t{16} << 20;
};

// Warnings never make a file invalid.
enum class warning_code : std::uint8_t {
    // rotation.w has one key while x, y and z have several (MRTK issue 9831).
    dropped_rotation_w,
    // A rotation whose four curves have keys at the same time far from unit length (level full).
    non_unit_quaternion,
    // A curve whose first key time is negative.
    negative_time,
};
// The stable name of a warning: "dropped_rotation_w", ...
std::string_view warning_name(warning_code code) noexcept;
inline std::optional<warning_code> parse_warning_name(std::string_view name) noexcept {
    return detail::parse_name<warning_code>(name, warning_name);
}

struct warning {
    warning_code code{};
    curve_id curve{};
    // The first keyframe concerned (-1 when not about one key) and how many are concerned.
    std::int64_t keyframe = -1;
    std::uint32_t count = 0;
    // The offending quantity: the quaternion length, or the negative time.
    float value = 0.0f;

    std::string_view path() const noexcept { return curve_path(curve); }
    std::string message() const;
};

struct report {
    inputanim::error error{};
    inputanim::summary summary{};
    static constexpr std::size_t max_warnings = 64;
    std::array<warning, max_warnings> warning_list{};
    std::size_t warning_count = 0;
    // Warnings found, including those beyond max_warnings.
    std::size_t warnings_found = 0;

    bool valid() const noexcept { return error.code == errc::ok; }
    std::span<const warning> warnings() const noexcept {
        return {warning_list.data(), warning_count};
    }
};

// The verdict on `bytes`: the first error in file order (structure before content), the summary
// and the warnings. Reads run under the guard of guard.hpp, so that bytes mapped from a file that
// another process truncates give errc::io_error (at the first byte that could not be read: no
// verdict) instead of a SIGBUS. With options.threads != 1 and level full, the content checks of a
// large input run on several threads; the report is the same. Allocates only to start threads.
report validate(std::span<const std::byte> bytes, const validate_options& options = {}) noexcept;

// reports[i] = validate(inputs[i], options) for every input that has a report (the first
// min(inputs.size(), reports.size())), each on the calling thread, faster than one call per
// input when the inputs are not in the processor's caches, as when an indexer summarizes many
// mapped files. Walking a file's structure is a chain of dependent loads, one curve header on
// another cache line after the other; this walks the structures of `batch_width` inputs side by
// side first, so that their cache misses overlap instead of adding up, then validates each input
// with its header lines in cache. Allocates nothing.
inline constexpr std::size_t batch_width = 8;
void validate(std::span<const std::span<const std::byte>> inputs, std::span<report> reports,
              const validate_options& options = {}) noexcept;

}  // namespace inputanim

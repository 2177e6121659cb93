// The baseline the benchmarks compare the library with: the reader most people write first.
// It opens the file with std::ifstream, reads every curve into a std::vector of keyframe structs
// (Unity's Keyframe: seven 4-byte fields), one read per keyframe, and checks each field as it
// goes; the recording it returns holds every key. It is faithful to FORMAT.md (layout detection,
// every check of level full in order, marker names as UTF-8) and reasonable (counts are checked
// against the bytes left before anything is reserved), but it shares no code with the library.
// Warnings are not computed, which only flatters it. Checking as it goes, it names the first
// fault it meets, where FORMAT.md wants a structural error anywhere to win over a content error
// before it: the same verdict on the valid files it is measured on, not always on invalid ones.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace straightforward {

struct keyframe {
    float time = 0;
    float value = 0;
    float in_tangent = 0;
    float out_tangent = 0;
    float in_weight = 0;
    float out_weight = 0;
    std::int32_t weighted_mode = 3;
};

struct curve {
    std::int32_t pre_wrap = 0;
    std::int32_t post_wrap = 0;
    std::vector<keyframe> keys;
};

struct marker {
    float time = 0;
    std::string name;
};

struct recording {
    std::int32_t major = 0;
    std::int32_t minor = 0;
    bool compact = false;
    std::vector<curve> curves;
    bool has_markers = false;
    std::vector<marker> markers;
};

enum class level { structure, full };

struct result {
    // Empty when the file is valid, else the error's code name ("truncated", "non_finite", ...).
    std::string error;
    std::uint64_t offset = 0;
    recording rec;
    // The summary, from the recording.
    std::uint64_t keyframes = 0;
    float start = 0;
    float duration = 0;
};

result read(const std::string& path, level lvl);

}  // namespace straightforward

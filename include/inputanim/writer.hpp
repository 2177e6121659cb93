// An in-memory model of a recording and the writer that turns it into byte-exact files.
// Tests, fuzz seeds and `inputanim gen` use it; it allocates freely, unlike the reader.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "inputanim/error.hpp"
#include "inputanim/format.hpp"
#include "inputanim/reader.hpp"

namespace inputanim {

// A keyframe with every field of the full layout. Defaults are what MRTK writes (and what the
// compact layout implies): tangents 0, weights 0, weighted mode both.
struct keyframe {
    float time = 0.0f;
    float value = 0.0f;
    float in_tangent = 0.0f;
    float out_tangent = 0.0f;
    float in_weight = 0.0f;
    float out_weight = 0.0f;
    std::int32_t weighted_mode = 3;
    friend bool operator==(const keyframe&, const keyframe&) = default;
};

struct curve {
    // Raw Int32 values so that tests can write invalid files; MRTK writes 8/8.
    std::int32_t pre_wrap = 8;
    std::int32_t post_wrap = 8;
    std::vector<keyframe> keys;
    friend bool operator==(const curve&, const curve&) = default;
};

struct marker {
    float time = 0.0f;
    std::string name;
    friend bool operator==(const marker&, const marker&) = default;
};

struct model {
    int major = 1;
    int minor = 1;
    // For v1.1 only; v1.0 is always written full.
    inputanim::layout layout = layout::compact;
    block_flags blocks{};
    // Indexed by curve_id; curves of absent blocks are not written.
    std::array<curve, curve_id_count> curves{};
    // nullopt: the file ends after the last curve, as the published page describes.
    std::optional<std::vector<marker>> markers = std::vector<marker>{};

    curve& operator[](curve_id id) { return curves[to_index(id)]; }
    const curve& operator[](curve_id id) const { return curves[to_index(id)]; }
    friend bool operator==(const model&, const model&) = default;
};

// The bytes of `m`. Versions other than 1.0/1.1 are written as given (header only, then the
// v1.1 body), so that tests can produce unsupported files.
std::vector<std::byte> write(const model& m);
void write(const model& m, std::vector<std::byte>& out);

// Reads a structurally sound file into a model (bit-exact: write(read) gives the same bytes).
error read_model(std::span<const std::byte> bytes, model& out, const read_options& options = {});

}  // namespace inputanim

// Files and a comparison of reports for the tests of the other ways to validate, which must give
// validate()'s report (validate_batch, validate_guarded).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "inputanim/inputanim.hpp"
#include "support/builders.hpp"

namespace inputanim::testing {

inline std::string describe(const error& e) {
    return std::string(error_name(e.code)) + " at " + std::to_string(e.offset) + " (index " +
           std::to_string(e.index) + ")";
}

// Empty when the two reports are the same in every field; else what differs.
inline std::string difference(const report& a, const report& b) {
    std::string d;
    if (!(a.error == b.error))
        d += "error " + describe(a.error) + " vs " + describe(b.error) + "; ";
    const summary& s = a.summary;
    const summary& t = b.summary;
    if (s.bytes != t.bytes || s.major != t.major || s.minor != t.minor || s.layout != t.layout ||
        !(s.blocks == t.blocks) || s.curves != t.curves || s.keyframes != t.keyframes ||
        s.markers != t.markers || s.start != t.start || s.duration != t.duration) {
        d += "summary; ";
    }
    if (a.warnings_found != b.warnings_found || a.warning_count != b.warning_count) {
        d += "warning counts; ";
    } else {
        for (std::size_t i = 0; i < a.warning_count; ++i) {
            const warning& v = a.warning_list[i];
            const warning& w = b.warning_list[i];
            if (v.code != w.code || v.curve != w.curve || v.keyframe != w.keyframe ||
                v.count != w.count || v.value != w.value) {
                d += "warning " + std::to_string(i) + "; ";
            }
        }
    }
    return d;
}

// Valid files of every shape with and without markers, a generated recording with warnings of
// every kind, and damaged copies: cut short, a bad count, a bad magic, a NaN key.
inline std::vector<bytes> mixed_files() {
    std::vector<bytes> files;
    for (const shape s : all_shapes) {
        for (const bool markers : {true, false}) {
            const model m = small_model(s, markers);
            const bytes b = write(m);
            files.push_back(b);
            files.push_back(
                bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(b.size() / 2)));
            bytes bad_count = b;
            put_i32(bad_count, curve_offset(m, 3) + 8, -1);
            files.push_back(bad_count);
            bytes nan_key = b;
            put_f32(nan_key, curve_offset(m, 0) + curve_header_size + 4, std::nanf(""));
            files.push_back(nan_key);
        }
    }
    bytes bad_magic = small_file(shape::v11_compact);
    bad_magic[0] = std::byte{0};
    files.push_back(bad_magic);
    files.push_back({});
    generate_options g;
    g.seconds = 2;
    g.markers = 3;
    for (const layout l : {layout::compact, layout::full}) {
        g.layout = l;
        model m = generate(g);
        // A rotation off unit length and a negative time, for the warnings.
        m[camera_curve(pose_channel::rotation_w)].keys[1].value = 3.0f;
        m[camera_curve(pose_channel::position_y)].keys[0].time = -0.25f;
        files.push_back(write(m));
    }
    return files;
}

}  // namespace inputanim::testing

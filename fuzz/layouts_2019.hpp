// The 2019 layouts for the fuzzers' seeds and harnesses, made from a v1.0 file's bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "inputanim/inputanim.hpp"

namespace inputanim::fuzz {

// The 2019 layouts of FORMAT.md section 9, made from a v1.0 file (which has no gaze and full
// keys): June is its body without the header; May moves the 7 camera curves after the hands,
// drops the marker list and ends with a trailer of BinaryFormatter's checked shape.
inline std::vector<std::byte> june_2019(const std::vector<std::byte>& v10) {
    return std::vector<std::byte>(v10.begin() + static_cast<std::ptrdiff_t>(header_size),
                                  v10.end());
}

inline std::vector<std::byte> may_2019(const std::vector<std::byte>& v10) {
    reader r({v10.data(), v10.size()});
    std::uint64_t camera_end = 0;
    std::uint64_t curves_end = 0;
    for (item it = r.next(); it == item::curve; it = r.next()) {
        if (r.curve().index + 1 == hand_state_first) camera_end = r.position();
        curves_end = r.position();
    }
    const auto at = [&](std::uint64_t offset) {
        return v10.begin() + static_cast<std::ptrdiff_t>(offset);
    };
    std::vector<std::byte> out(at(camera_end), at(curves_end));
    out.insert(out.end(), at(header_size), at(camera_end));
    const std::uint8_t prefix[] = {0x00, 0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
                                   0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    for (std::uint8_t b : prefix) out.push_back(std::byte{b});
    out.resize(out.size() + 506, std::byte{0x2e});
    out.push_back(std::byte{0x0b});
    return out;
}

}  // namespace inputanim::fuzz

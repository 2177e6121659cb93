// The structure-aware harnesses' model of a recording chosen by the fuzzer's bytes: version,
// blocks, layout, wrap modes, key counts, every keyframe field as raw bits, markers with any
// names (or no marker list).
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include "inputanim/inputanim.hpp"

namespace inputanim::fuzz {

inline constexpr std::int32_t wrap_modes[] = {0, 1, 2, 4, 8};

inline float any_float(FuzzedDataProvider& p) {
    return std::bit_cast<float>(p.ConsumeIntegral<std::uint32_t>());
}

inline void append_utf8(std::string& s, std::uint32_t cp) {
    if (cp < 0x80) {
        s += static_cast<char>(cp);
    } else if (cp < 0x800) {
        s += static_cast<char>(0xc0 | (cp >> 6));
        s += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        s += static_cast<char>(0xe0 | (cp >> 12));
        s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        s += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        s += static_cast<char>(0xf0 | (cp >> 18));
        s += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        s += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

inline std::string any_name(FuzzedDataProvider& p) {
    switch (p.ConsumeIntegralInRange(0, 3)) {
        case 0: {
            // Valid UTF-8 of any code points (surrogates are not code points).
            std::string s;
            const int n = p.ConsumeIntegralInRange(0, 24);
            for (int i = 0; i < n; ++i) {
                std::uint32_t cp = p.ConsumeIntegralInRange<std::uint32_t>(0, 0x10ffff);
                if (cp >= 0xd800 && cp <= 0xdfff) cp -= 0x800;
                append_utf8(s, cp);
            }
            return s;
        }
        case 1:
            // Any bytes, which need not be UTF-8: the writer and the structure walk carry them.
            return p.ConsumeRandomLengthString(64);
        case 2: {
            // Long names need 2- and 3-byte length prefixes.
            const auto n = p.ConsumeIntegralInRange<std::size_t>(100, 20000);
            return std::string(n, static_cast<char>(p.ConsumeIntegralInRange(0x20, 0x7e)));
        }
        default:
            return {};
    }
}

inline model any_model(FuzzedDataProvider& p) {
    model m;
    if (p.ConsumeBool()) {
        m.minor = 0;
        m.layout = layout::full;
        m.blocks = block_flags{true, true, false};
    } else {
        m.minor = 1;
        m.layout = p.ConsumeBool() ? layout::full : layout::compact;
        m.blocks = block_flags{p.ConsumeBool(), p.ConsumeBool(), p.ConsumeBool()};
    }
    const std::size_t curves = curve_count(m.blocks);
    const int changed = curves == 0 ? 0 : p.ConsumeIntegralInRange(0, 32);
    for (int i = 0; i < changed; ++i) {
        const curve_id id =
            curve_at(m.blocks, p.ConsumeIntegralInRange<std::size_t>(0, curves - 1));
        curve& c = m[id];
        c.pre_wrap = p.PickValueInArray(wrap_modes);
        c.post_wrap = p.PickValueInArray(wrap_modes);
        const bool full = m.layout == layout::full && kind_of(id) == curve_kind::float_curve;
        // More keys than the bytes left can fill would only repeat zeros.
        const std::size_t n = p.ConsumeIntegralInRange<std::size_t>(
            0, std::min<std::size_t>(2000, p.remaining_bytes() / (full ? 28 : 8)));
        c.keys.clear();
        for (std::size_t k = 0; k < n; ++k) {
            keyframe kf;
            kf.time = any_float(p);
            kf.value = any_float(p);
            if (full) {
                kf.in_tangent = any_float(p);
                kf.out_tangent = any_float(p);
                kf.in_weight = any_float(p);
                kf.out_weight = any_float(p);
                kf.weighted_mode = p.ConsumeIntegral<std::int32_t>();
            }
            c.keys.push_back(kf);
        }
    }
    if (p.ConsumeBool()) {
        m.markers.reset();
    } else {
        const int n = p.ConsumeIntegralInRange(0, 16);
        for (int i = 0; i < n; ++i) m.markers->push_back(marker{any_float(p), any_name(p)});
    }
    return m;
}

inline layout_choice choice_of(layout l) {
    return l == layout::compact ? layout_choice::compact : layout_choice::full;
}

}  // namespace inputanim::fuzz

// Structure-aware round trip: the fuzzer's bytes choose a model (version, blocks, layout, wrap
// modes, key counts, every keyframe field as raw bits, markers with any names), the writer
// turns it into a file, and reading that file must give the same model, bit for bit, and the
// same bytes when written again.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "invariants.hpp"

namespace inputanim::fuzz {
namespace {

constexpr std::int32_t wrap_modes[] = {0, 1, 2, 4, 8};

float any_float(FuzzedDataProvider& p) {
    return std::bit_cast<float>(p.ConsumeIntegral<std::uint32_t>());
}

void append_utf8(std::string& s, std::uint32_t cp) {
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

std::string any_name(FuzzedDataProvider& p) {
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

model any_model(FuzzedDataProvider& p) {
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

layout_choice choice_of(layout l) {
    return l == layout::compact ? layout_choice::compact : layout_choice::full;
}

}  // namespace
}  // namespace inputanim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace inputanim;
    using namespace inputanim::fuzz;
    FuzzedDataProvider provider(data, size);
    const model m = any_model(provider);
    const std::vector<std::byte> bytes = write(m);
    const std::span<const std::byte> view(bytes);

    // Read under the layout it was written with: the same model, then the same bytes.
    model back;
    FUZZ_CHECK_OK(read_model(view, back, read_options{choice_of(m.layout)}));
    FUZZ_CHECK(same_model(m, back));
    const std::vector<std::byte> again = write(back);
    FUZZ_CHECK(again == bytes);

    // Structurally valid; the summary counts what the model holds.
    const report r = validate(view, validate_options{level::structure, choice_of(m.layout)});
    FUZZ_CHECK(r.valid());
    std::uint64_t keys = 0;
    for (std::size_t i = 0; i < curve_count(m.blocks); ++i)
        keys += m[curve_at(m.blocks, i)].keys.size();
    FUZZ_CHECK(r.summary.keyframes == keys && r.summary.curves == curve_count(m.blocks));
    FUZZ_CHECK(r.summary.markers.has_value() == m.markers.has_value());
    FUZZ_CHECK(!m.markers || *r.summary.markers == m.markers->size());
    const report full = validate(view, validate_options{level::full, choice_of(m.layout)});
    FUZZ_CHECK(!full.error || !is_structural(full.error.code));

    // Layout detection finds a sound reading; when it is another layout, that reading is
    // itself stable under write and read.
    model detected;
    FUZZ_CHECK_OK(read_model(view, detected));
    if (detected.layout == m.layout || m.minor == 0) {
        FUZZ_CHECK(same_model(detected, m));
    } else {
        FUZZ_CHECK(m.layout == layout::full);
        model reread;
        const std::vector<std::byte> rewritten = write(detected);
        FUZZ_CHECK_OK(read_model(std::span<const std::byte>(rewritten), reread,
                                 read_options{choice_of(detected.layout)}));
        FUZZ_CHECK(same_model(detected, reread));
    }
    return 0;
}

// Structure-aware evaluation: the fuzzer's bytes choose a float curve (layout, wrap modes, key
// times with tiny and huge gaps, any finite values, tangents including infinite ones, weights
// from 0 to 1e6 and any finite value beyond, weighted modes) and a bool curve; the writer makes
// the file, and at times the bytes choose (mostly forward, sometimes back, exactly at keys):
// finite times give finite values, a key's time gives its value, the sampler equals evaluate bit
// for bit, linear (compact) curves stay between their smallest and largest key values, and bool
// curves read 0 or 1.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "invariants.hpp"

namespace inputanim::fuzz {
namespace {

constexpr std::int32_t wrap_modes[] = {0, 1, 2, 4, 8};
constexpr float inf = std::numeric_limits<float>::infinity();

float gap(FuzzedDataProvider& p) {
    switch (p.ConsumeIntegralInRange(0, 4)) {
        case 0:
            return 0.0f;  // the next float up: the shortest segment there is
        case 1:
            return p.ConsumeFloatingPointInRange(0.0f, 1e-30f);
        case 2:
            return p.ConsumeFloatingPointInRange(1e-4f, 1.0f);
        case 3:
            return p.ConsumeFloatingPointInRange(1.0f, 1e6f);
        default:
            return p.ConsumeFloatingPointInRange(1e6f, 1e38f);
    }
}

float tangent(FuzzedDataProvider& p) {
    switch (p.ConsumeIntegralInRange(0, 4)) {
        case 0:
            return inf;
        case 1:
            return -inf;
        case 2:
            return 0.0f;
        case 3:
            return p.ConsumeFloatingPoint<float>();
        default:
            return p.ConsumeFloatingPointInRange(-100.0f, 100.0f);
    }
}

float weight(FuzzedDataProvider& p) {
    switch (p.ConsumeIntegralInRange(0, 4)) {
        case 0:
            return 0.0f;
        case 1:
            return 1.0f / 3.0f;
        case 2:
            return p.ConsumeFloatingPointInRange(0.0f, 1.0f);
        case 3:
            return p.ConsumeFloatingPointInRange(1.0f, 1e6f);
        default:
            return p.ConsumeFloatingPoint<float>();
    }
}

// Strictly increasing finite times; stops early when the next one would overflow.
std::vector<keyframe> keys(FuzzedDataProvider& p, bool boolean) {
    std::vector<keyframe> out;
    const int n = p.ConsumeIntegralInRange(0, 48);
    float t = p.ConsumeFloatingPointInRange(-1e6f, 1e6f);
    for (int i = 0; i < n; ++i) {
        keyframe k;
        k.time = t;
        k.value = boolean ? static_cast<float>(p.ConsumeBool()) : p.ConsumeFloatingPoint<float>();
        k.in_tangent = tangent(p);
        k.out_tangent = tangent(p);
        k.in_weight = weight(p);
        k.out_weight = weight(p);
        k.weighted_mode = p.ConsumeIntegralInRange(0, 7) == 0 ? p.ConsumeIntegral<std::int32_t>()
                                                              : p.ConsumeIntegralInRange(0, 3);
        out.push_back(k);
        const float next = std::max(t + gap(p), std::nextafter(t, inf));
        if (!std::isfinite(next)) break;
        t = next;
    }
    return out;
}

// Times around the keys: small steps forward, jumps, arbitrary times, and key times.
std::vector<float> times(FuzzedDataProvider& p, const curve_view& c) {
    std::vector<float> out;
    const double first = c.keys.empty() ? 0.0 : c.keys.front().time();
    const double last = c.keys.empty() ? 1.0 : c.keys.back().time();
    const double length = std::max(last - first, 1e-6);
    double t = first - length * p.ConsumeFloatingPointInRange(0.0, 2.0);
    const int n = p.ConsumeIntegralInRange(1, 96);
    for (int i = 0; i < n && p.remaining_bytes() > 0; ++i) {
        switch (p.ConsumeIntegralInRange(0, 7)) {
            case 0:
                t = first + length * p.ConsumeFloatingPointInRange(-3.0, 4.0);
                break;
            case 1:
                t += length * p.ConsumeFloatingPointInRange(0.0, 0.5);
                break;
            case 2:
                if (!c.keys.empty()) {
                    t = c.keys[p.ConsumeIntegralInRange<std::size_t>(0, c.keys.size() - 1)].time();
                }
                break;
            case 3:
                t = p.ConsumeFloatingPoint<float>();
                break;
            default:
                t += length * p.ConsumeFloatingPointInRange(0.0, 0.02);
                break;
        }
        const auto f = static_cast<float>(std::clamp<double>(
            t, std::numeric_limits<float>::lowest(), std::numeric_limits<float>::max()));
        out.push_back(f);
    }
    return out;
}

void check_curve(FuzzedDataProvider& p, const curve_view& c, bool linear) {
    for (const keyframe_view k : c.keys) FUZZ_CHECK(same_bits(evaluate(c, k.time()), k.value()));
    float lowest = inf;
    float highest = -inf;
    for (const keyframe_view k : c.keys) {
        lowest = std::min(lowest, k.value());
        highest = std::max(highest, k.value());
    }
    curve_sampler sampler(c);
    for (const float t : times(p, c)) {
        const float v = evaluate(c, t);
        FUZZ_CHECK(same_bits(sampler(t), v));
        FUZZ_CHECK(std::isfinite(v));
        if (c.keys.empty()) FUZZ_CHECK(v == 0.0f);
        if (linear && !c.keys.empty()) FUZZ_CHECK(v >= lowest && v <= highest);
        if (c.kind == curve_kind::bool_curve) {
            FUZZ_CHECK(v == 0.0f || v == 1.0f);
            FUZZ_CHECK(evaluate_bool(c, t) == (v == 1.0f));
        }
    }
}

}  // namespace
}  // namespace inputanim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace inputanim;
    using namespace inputanim::fuzz;
    FuzzedDataProvider p(data, size);
    model m;
    switch (p.ConsumeIntegralInRange(0, 2)) {
        case 0:
            m.minor = 0;
            break;
        case 1:
            m.layout = layout::compact;
            break;
        default:
            m.layout = layout::full;
            break;
    }
    m.blocks = {true, true, false};
    const curve_id float_id = camera_curve(pose_channel::position_x);
    const curve_id bool_id = hand_state_curve(hand_state::left_tracked);
    for (const curve_id id : {float_id, bool_id}) {
        m[id].pre_wrap = p.PickValueInArray(wrap_modes);
        m[id].post_wrap = p.PickValueInArray(wrap_modes);
        m[id].keys = keys(p, id == bool_id);
    }
    const std::vector<std::byte> bytes = write(m);
    // The layout as written: some full-layout files are also sound read as compact, and layout
    // detection would then take them for compact ones.
    const bool compact = m.minor == 1 && m.layout == layout::compact;
    recording rec;
    FUZZ_CHECK_OK(rec.open(bytes, {compact ? layout_choice::compact : layout_choice::full, {}}));
    check_curve(p, *rec.find(float_id), compact);
    check_curve(p, *rec.find(bool_id), false);
    return 0;
}

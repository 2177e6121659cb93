// Structure-aware conversion: the fuzzer's bytes choose a model (models.hpp) written in its
// layout A (a v1.0 model sometimes as a 2019 layout, layouts_2019.hpp), a target layout B (v1.0,
// v1.1 compact, v1.1 full) and sometimes a window, a shift and thinning. Converting A to B must
// give a sound file of B that holds the same keys (time and value bit for bit; every field when
// both are full) and markers; converting back to A gives A's bytes when B lost nothing. For every
// option (window ends anywhere in float's range, shift, thinning, or none): a file that passes
// level full passes it after the conversion, or the conversion is refused because the shift would
// move a time past the largest float.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "invariants.hpp"
#include "layouts_2019.hpp"
#include "models.hpp"

namespace inputanim::fuzz {
namespace {

struct target {
    int minor;
    layout l;
};
constexpr target targets[] = {{0, layout::full}, {1, layout::compact}, {1, layout::full}};

std::vector<std::byte> convert_to(std::span<const std::byte> bytes, layout_choice read_as,
                                  const convert_options& o, convert_result& result) {
    recording rec;
    FUZZ_CHECK_OK(rec.open(bytes, read_options{read_as}));
    std::vector<std::byte> out;
    vector_sink sink(out);
    result = convert(rec, sink, o);
    // The one refusal: a shift that would move a time past the largest float.
    FUZZ_CHECK(!result.error ||
               (o.shift_to_zero && result.error == convert_error::shift_out_of_range));
    return out;
}

// A window's end: near the keys most of the time, else anywhere in float's range.
float any_end(FuzzedDataProvider& provider) {
    if (provider.ConsumeBool()) return provider.ConsumeFloatingPointInRange(-10.0f, 10.0f);
    const float f = any_float(provider);
    return std::isfinite(f) ? f : 0.0f;
}

block_flags blocks_of(const model& m) {
    return m.minor == 0 ? block_flags{true, true, false} : m.blocks;
}

bool full(const model& m) {
    return m.minor == 0 || m.layout == layout::full;
}

// `bytes` converted as they arrive, as `inputanim convert` converts gzip or standard input: fed to
// a stream validator in pieces of `piece` bytes and held until it knows the layout, then
// streamed through a stream_converter. Nullopt for a source whose layout only its end tells
// (a 2019 layout), and for a v1.1 source that `automatic` reads in another layout than
// `layout_of` (one sound in both).
std::optional<std::vector<std::byte>> convert_arriving(std::span<const std::byte> bytes,
                                                       layout_choice read_as, layout layout_of,
                                                       const convert_options& o, std::size_t piece,
                                                       convert_result& result) {
    stream_validator v(validate_options{level::structure, read_as});
    std::vector<std::byte> out;
    vector_sink sink(out);
    std::optional<stream_converter> converter;
    std::size_t held = 0;
    for (std::size_t at = 0; at < bytes.size(); at += piece) {
        const std::span<const std::byte> p = bytes.subspan(at, std::min(piece, bytes.size() - at));
        FUZZ_CHECK(v.feed(p) != stream_status::error);
        if (!converter) {
            const std::optional<file_header> h = v.layout_known();
            if (!h) {
                held = at + p.size();
                continue;
            }
            FUZZ_CHECK(h->edition == edition::v1);
            converter.emplace(h->layout, sink, o);
            if (h->layout != layout_of) return std::nullopt;
            FUZZ_CHECK(!converter->feed(bytes.first(held)));
        }
        FUZZ_CHECK(!converter->feed(p));
    }
    FUZZ_CHECK(v.finish().valid());
    if (!converter) return std::nullopt;
    result = converter->finish();
    FUZZ_CHECK(!result.error);
    return out;
}

summary summary_of(std::span<const std::byte> bytes, layout_choice read_as) {
    recording rec;
    FUZZ_CHECK_OK(rec.open(bytes, read_options{read_as}));
    return rec.summary();
}

}  // namespace
}  // namespace inputanim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace inputanim;
    using namespace inputanim::fuzz;
    FuzzedDataProvider provider(data, size);
    const model m = any_model(provider);
    const target t = provider.PickValueInArray(targets);
    convert_options o;
    o.minor = t.minor;
    o.layout = t.l;
    const bool reshape = provider.ConsumeBool();
    if (reshape) {
        if (provider.ConsumeBool()) o.from = any_end(provider);
        if (provider.ConsumeBool()) o.to = any_end(provider);
        if (o.from && o.to && *o.from > *o.to) std::swap(*o.from, *o.to);
        o.shift_to_zero = provider.ConsumeBool();
        if (provider.ConsumeBool()) o.thin = thinning{};
    }
    // A v1.0 model is also what a 2019 file holds: written as June (its marker list kept) or May
    // (its markers unknown), read by detection.
    const int edition_pick = m.minor == 0 ? provider.ConsumeIntegralInRange(0, 2) : 0;
    const std::vector<std::byte> v1 = write(m);
    const std::vector<std::byte> a = edition_pick == 1   ? june_2019(v1)
                                     : edition_pick == 2 ? may_2019(v1)
                                                         : v1;
    const bool may = edition_pick == 2;
    const layout_choice read_as =
        edition_pick != 0 ? layout_choice::automatic : choice_of(m.layout);
    convert_result result;
    const std::vector<std::byte> b = convert_to(a, read_as, o, result);
    const layout_choice b_read_as = choice_of(t.l);
    const bool valid_before = validate(a, validate_options{level::full, read_as}).valid();
    if (result.error) {
        // Refused: only for a shift past the largest float, which a valid file whose times (and
        // window) all lie within half of float's range never needs.
        const auto far = [](float t) { return !(std::abs(t) <= 1.7e38f); };
        const summary s = summary_of(a, read_as);
        const bool far_keys = s.start && (far(*s.start) || far(*s.duration));
        const bool far_markers =
            m.markers && std::any_of(m.markers->begin(), m.markers->end(),
                                     [&](const marker& k) { return far(k.time); });
        FUZZ_CHECK(!valid_before || far_keys || far_markers || (o.from && far(*o.from)));
        return 0;
    }
    // Valid at level full in, valid at level full out, for every option.
    if (valid_before) FUZZ_CHECK(validate(b, validate_options{level::full, b_read_as}).valid());
    model out;
    FUZZ_CHECK_OK(read_model(b, out, read_options{b_read_as}));
    FUZZ_CHECK(out.major == 1 && out.minor == t.minor);
    FUZZ_CHECK(t.minor == 0 || (out.layout == t.l && out.blocks == m.blocks));
    FUZZ_CHECK(out.markers.has_value());

    if (reshape) return 0;

    // Converted as it arrives, in pieces of any size: the same bytes and the same result.
    // The layout found as the command finds it (automatic), or as asked.
    const layout_choice stream_as = provider.ConsumeBool() ? layout_choice::automatic : read_as;
    convert_result arriving_result;
    const std::optional<std::vector<std::byte>> arriving =
        convert_arriving(a, stream_as, full(m) ? layout::full : layout::compact, o,
                         provider.ConsumeIntegralInRange<std::size_t>(1, 4096), arriving_result);
    FUZZ_CHECK(edition_pick == 0 || !arriving);
    FUZZ_CHECK(arriving || edition_pick != 0 || stream_as == layout_choice::automatic);
    if (arriving) {
        FUZZ_CHECK(*arriving == b);
        FUZZ_CHECK(arriving_result.keys_written == result.keys_written &&
                   arriving_result.markers_written == result.markers_written &&
                   arriving_result.curved_keys == result.curved_keys &&
                   arriving_result.gaze_keys_dropped == result.gaze_keys_dropped &&
                   arriving_result.empty_curves_added == result.empty_curves_added &&
                   arriving_result.marker_list_added == result.marker_list_added);
    }

    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const auto id = curve_id(i);
        const bool in_a = has_curve(blocks_of(m), id);
        if (!has_curve(blocks_of(out), id)) continue;
        const curve& x = m[id];
        const curve& y = out[id];
        if (!in_a) {
            FUZZ_CHECK(y.keys.empty() && y.pre_wrap == 8 && y.post_wrap == 8);
            continue;
        }
        FUZZ_CHECK(x.pre_wrap == y.pre_wrap && x.post_wrap == y.post_wrap);
        FUZZ_CHECK(x.keys.size() == y.keys.size());
        const bool keep_all = full(m) && full(out) && kind_of(id) == curve_kind::float_curve;
        for (std::size_t k = 0; k < x.keys.size(); ++k) {
            FUZZ_CHECK(same_bits(x.keys[k].time, y.keys[k].time));
            FUZZ_CHECK(same_bits(x.keys[k].value, y.keys[k].value));
            if (keep_all) FUZZ_CHECK(same_keyframe(x.keys[k], y.keys[k]));
        }
    }
    FUZZ_CHECK(result.marker_list_added == (may || !m.markers.has_value()));
    if (may) {
        FUZZ_CHECK(out.markers->empty());
    } else if (m.markers) {
        FUZZ_CHECK(out.markers->size() == m.markers->size());
        for (std::size_t i = 0; i < m.markers->size(); ++i) {
            FUZZ_CHECK(same_bits((*out.markers)[i].time, (*m.markers)[i].time));
            FUZZ_CHECK((*out.markers)[i].name == (*m.markers)[i].name);
        }
    }

    // Back to A: A's bytes when B held everything A had.
    convert_options back;
    back.minor = m.minor;
    back.layout = m.layout;
    convert_result back_result;
    const std::vector<std::byte> again = convert_to(b, b_read_as, back, back_result);
    const bool lost_gaze = t.minor == 0 && m.minor == 1 && m.blocks.gaze;
    const bool lost_blocks = t.minor == 0 && m.minor == 1 && !(m.blocks.camera && m.blocks.hands);
    const bool lost_tangents = full(m) && !full(out);
    // A 2019 source comes back as the v1.0 file of its curves.
    if (!lost_gaze && !lost_blocks && !lost_tangents && m.markers && !may) FUZZ_CHECK(again == v1);
    return 0;
}

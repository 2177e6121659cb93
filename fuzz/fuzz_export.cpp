// Raw bytes through the exporters: any file that reads as a recording (under the first layout
// choice that reads it) exports to .glb, .gltf and .anim without a crash, within the size computed
// before writing (exact for glTF, a bound for the clip); a refusal writes nothing; the glTF's JSON
// always parses and holds the marker names as the recording does; every number of a .glb's
// buffer is finite; the clip holds no character YAML 1.1 refuses raw; a .glb past 4 GiB is
// refused from its plan; and a grid of a few rows over times far from 0 is shifted or refused.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "inputanim/detail/decoders.hpp"
#include "invariants.hpp"

namespace inputanim::fuzz {
namespace {

// The JSON of a .glb (its first chunk) or of a .gltf (the whole file).
std::string json_of(export_format f, const std::vector<std::byte>& out) {
    const auto* text = reinterpret_cast<const char*>(out.data());
    if (f == export_format::gltf) return {text, out.size()};
    FUZZ_CHECK(out.size() >= 20 && std::memcmp(text, "glTF", 4) == 0);
    // Little-endian on every host.
    std::uint32_t length = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        length |= static_cast<std::uint32_t>(static_cast<unsigned char>(text[12 + i])) << (8 * i);
    }
    FUZZ_CHECK(length <= out.size() - 20 && std::memcmp(text + 16, "JSON", 4) == 0);
    return {text + 20, length};
}

// Whether `s` is UTF-8 (RFC 3629), as the format's rule reads a marker name.
bool is_utf8(std::string_view s) {
    detail::utf8_decoder d;
    for (const char c : s) {
        if (!d.add(static_cast<std::uint8_t>(c))) return false;
    }
    return d.at_boundary();
}

// What YAML 1.1 does not allow raw in a double-quoted scalar, or reads as a line break: C1
// controls, U+2028, U+2029, U+FEFF and the noncharacters of the Basic Multilingual Plane.
bool holds_raw_what_yaml_refuses(std::string_view text) {
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {
        const auto a = static_cast<unsigned char>(text[i]);
        const auto b = static_cast<unsigned char>(text[i + 1]);
        if (a == 0xc2 && b >= 0x80 && b <= 0x9f) return true;
        if (i + 2 >= text.size()) continue;
        const auto c = static_cast<unsigned char>(text[i + 2]);
        if (a == 0xe2 && b == 0x80 && (c == 0xa8 || c == 0xa9)) return true;
        if (a == 0xef && b == 0xbb && c == 0xbf) return true;
        if (a == 0xef && b == 0xb7 && c >= 0x90 && c <= 0xaf) return true;
        if (a == 0xef && b == 0xbf && (c == 0xbe || c == 0xbf)) return true;
    }
    return false;
}

// Every number of a .glb's buffer after its geometry (the times and every channel) is finite, and
// its JSON says its lengths.
void check_glb_numbers(const std::vector<std::byte>& out) {
    const auto u32 = [&](std::size_t at) {
        std::uint32_t v = 0;
        for (std::size_t i = 0; i < 4; ++i) {
            v |= static_cast<std::uint32_t>(std::to_integer<std::uint8_t>(out[at + i])) << (8 * i);
        }
        return v;
    };
    FUZZ_CHECK(u32(8) == out.size());
    const std::size_t bin = 20 + std::size_t{u32(12)};
    FUZZ_CHECK(bin + 8 <= out.size() && u32(bin) == out.size() - bin - 8);
    // 192 bytes of geometry (positions, then 16-bit indices), then floats only.
    for (std::size_t at = bin + 8 + 192; at + 4 <= out.size(); at += 4) {
        FUZZ_CHECK(std::isfinite(std::bit_cast<float>(u32(at))));
    }
}

export_result check_export(const recording& rec, const export_options& o) {
    std::vector<std::byte> out;
    vector_sink sink(out);
    const export_result r = export_recording(rec, sink, o);
    if (r.error) {
        FUZZ_CHECK(out.empty());
        return r;
    }
    FUZZ_CHECK(r.written == out.size());
    if (o.format == export_format::anim) {
        FUZZ_CHECK(out.size() <= r.size);
        const std::string_view text(reinterpret_cast<const char*>(out.data()), out.size());
        FUZZ_CHECK(!holds_raw_what_yaml_refuses(text));
        return r;
    }
    FUZZ_CHECK(out.size() == r.size);
    const nlohmann::json j = nlohmann::json::parse(json_of(o.format, out), nullptr, false);
    FUZZ_CHECK(!j.is_discarded());
    FUZZ_CHECK(j.contains("asset") && j["asset"]["version"] == "2.0");
    // Every marker name reads back as the recording holds it (when it is UTF-8).
    if (j.contains("animations")) {
        const nlohmann::json& listed = j["animations"][0]["extras"]["markers"];
        std::size_t i = 0;
        for (const marker_view& m : rec.markers()) {
            FUZZ_CHECK(i < listed.size());
            const std::string name = listed[i++]["name"];
            if (is_utf8(m.name)) FUZZ_CHECK(name == m.name);
        }
    }
    if (o.format == export_format::glb) check_glb_numbers(out);
    return r;
}

void check_exports(const recording& rec, export_format f) {
    export_options o;
    o.format = f;
    // A coarse grid and a small ceiling: the harness is about shapes, not sizes.
    o.rate = 10.0;
    o.max_bytes = std::uint64_t{4} << 20;
    check_export(rec, o);
    if (f != export_format::glb) return;
    // A grid of a few rows over any span: times far from 0 are shifted, or refused.
    o.rate = 1e-37;
    const export_result coarse = check_export(rec, o);
    FUZZ_CHECK(coarse.error != export_error::glb_too_large);
    // The plan alone at 60 Hz and no ceiling: a .glb past its 32-bit lengths is refused. Only
    // over times near 0 and a few million grid points, where the grid's rows are not counted one
    // by one: the harness stays fast.
    const summary& s = rec.summary();
    if (!s.start || !s.duration || !(std::abs(*s.start) <= 1e5f && std::abs(*s.duration) <= 1e5f) ||
        !((*s.duration - *s.start) * 60.0f <= 4e6f)) {
        return;
    }
    o.rate = 60.0;
    o.max_bytes = std::numeric_limits<std::uint64_t>::max();
    exporter planned(rec, o);
    const export_result p = planned.plan();
    if (p.error == export_error::glb_too_large) FUZZ_CHECK(p.size > max_glb_bytes);
    if (!p.error) FUZZ_CHECK(p.size <= max_glb_bytes);
}

// The recording of `bytes` under the first layout choice that reads them (automatic first), in
// every format: the exporters see the recording, not how it was found.
void check_exporting(std::span<const std::byte> bytes) {
    for (const layout_choice choice : all_layout_choices) {
        recording rec;
        if (rec.open(bytes, read_options{choice})) continue;
        for (const export_format f :
             {export_format::glb, export_format::gltf, export_format::anim}) {
            check_exports(rec, f);
        }
        return;
    }
}

}  // namespace
}  // namespace inputanim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    inputanim::fuzz::check_exporting(inputanim::fuzz::as_bytes(data, size));
    return 0;
}

// Raw bytes through the exporters: any file that reads as a recording (under the first layout
// choice that reads it) exports to .glb, .gltf and .anim without a crash, within the size computed
// before writing (exact for glTF, a bound for the clip); a refusal writes nothing; and the glTF's
// JSON always parses.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

void check_export(const recording& rec, export_format f) {
    std::vector<std::byte> out;
    vector_sink sink(out);
    export_options o;
    o.format = f;
    // A coarse grid and a small ceiling: the harness is about shapes, not sizes.
    o.rate = 10.0;
    o.max_bytes = std::uint64_t{4} << 20;
    const export_result r = export_recording(rec, sink, o);
    if (r.error) {
        FUZZ_CHECK(out.empty());
        return;
    }
    FUZZ_CHECK(r.written == out.size());
    if (f == export_format::anim) {
        FUZZ_CHECK(out.size() <= r.size);
        return;
    }
    FUZZ_CHECK(out.size() == r.size);
    const nlohmann::json j = nlohmann::json::parse(json_of(f, out), nullptr, false);
    FUZZ_CHECK(!j.is_discarded());
    FUZZ_CHECK(j.contains("asset") && j["asset"]["version"] == "2.0");
}

}  // namespace
}  // namespace inputanim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace inputanim;
    using namespace inputanim::fuzz;
    const std::span<const std::byte> bytes = as_bytes(data, size);
    // Under the first layout choice that reads the bytes (automatic first): the exporters see the
    // recording, not how it was found.
    for (const layout_choice choice : all_layout_choices) {
        recording rec;
        if (rec.open(bytes, read_options{choice})) continue;
        for (const export_format f :
             {export_format::glb, export_format::gltf, export_format::anim}) {
            check_export(rec, f);
        }
        break;
    }
    return 0;
}

// Raw bytes through the .anim importer (import/anim.cpp): the importers' invariant
// (import_invariants.hpp), and more: a refusal has one of the codes the .anim importer gives and
// no warnings; the warnings stay bounded, whatever the input holds; the file an import gives,
// exported as a clip and imported again, comes back with the same curves (the None joint aside,
// which a clip does not carry) and markers, bit for bit.
#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

#include "import_invariants.hpp"
#include "inputanim/export.hpp"

namespace inputanim::fuzz {
namespace {

// The codes an .anim import refuses with (import_model takes the size first).
bool anim_refusal(const std::error_code& e) {
    if (e == std::errc::not_enough_memory) return true;
    if (e.category() != import_error_category()) return false;
    switch (static_cast<import_error>(e.value())) {
        case import_error::too_large:
        case import_error::limit_exceeded:
        case import_error::not_finite:
        case import_error::unsorted_keys:
        case import_error::bad_field:
        case import_error::binary_clip:
        case import_error::bad_yaml:
        case import_error::yaml_too_deep:
        case import_error::yaml_too_many_nodes:
        case import_error::unknown_tag:
        case import_error::not_a_clip:
            return true;
        default:
            return false;
    }
}

bool none_joint(std::size_t i) {
    return i >= left_joint_first && i < gaze_first &&
           (i - left_joint_first) % (joint_count * pose_channel_count) < pose_channel_count;
}

void check_importing(std::span<const std::byte> bytes) {
    check_import(bytes, import_format::anim);
    model m;
    const import_result r = import_model(bytes, import_format::anim, m, fuzz_import_options());
    // Past a hundred, the warnings are counted in one more.
    FUZZ_CHECK(r.warnings.size() <= 101);
    if (r.error) {
        FUZZ_CHECK(anim_refusal(r.error));
        FUZZ_CHECK(r.warnings.empty());
        return;
    }
    // What the import gives is the file: a key the compact layout holds reads back with its
    // tangents and weights +0, a -0 among them written as MRTK's linear key.
    // Read in the layout it was written in: a v1.1 file does not say its layout, and a full one
    // may also be sound read as compact.
    const std::vector<std::byte> file = write(m);
    read_options as_written;
    as_written.layout = m.layout == layout::full ? layout_choice::full : layout_choice::compact;
    model mine;
    FUZZ_CHECK_OK(read_model(file, mine, as_written));
    recording rec;
    FUZZ_CHECK_OK(rec.open(file, as_written));
    std::vector<std::byte> clip;
    vector_sink sink(clip);
    export_options o;
    o.format = export_format::anim;
    FUZZ_CHECK(!export_recording(rec, sink, o).error);
    model again;
    const import_result back = import_model(clip, import_format::anim, again);
    FUZZ_CHECK(!back.error);
    FUZZ_CHECK(again.blocks == mine.blocks && again.layout == mine.layout);
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const curve& a = mine.curves[i];
        const curve& b = again.curves[i];
        if (none_joint(i)) {
            FUZZ_CHECK(b.keys.empty());
            continue;
        }
        FUZZ_CHECK(a.pre_wrap == b.pre_wrap && a.post_wrap == b.post_wrap);
        FUZZ_CHECK(a.keys.size() == b.keys.size());
        for (std::size_t k = 0; k < a.keys.size(); ++k) {
            FUZZ_CHECK(same_keyframe(a.keys[k], b.keys[k]));
        }
    }
    FUZZ_CHECK(mine.markers && again.markers && mine.markers->size() == again.markers->size());
    for (std::size_t i = 0; i < mine.markers->size(); ++i) {
        FUZZ_CHECK(same_bits((*mine.markers)[i].time, (*again.markers)[i].time));
        FUZZ_CHECK((*mine.markers)[i].name == (*again.markers)[i].name);
    }
}

}  // namespace
}  // namespace inputanim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    inputanim::fuzz::check_importing(inputanim::fuzz::as_bytes(data, size));
    return 0;
}

// Structure-aware round trip: the fuzzer's bytes choose a model (version, blocks, layout, wrap
// modes, key counts, every keyframe field as raw bits, markers with any names), the writer
// turns it into a file, and reading that file must give the same model, bit for bit, and the
// same bytes when written again.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>

#include "invariants.hpp"
#include "models.hpp"

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

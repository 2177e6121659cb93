// Raw bytes through validate at both levels and every layout choice, checked against the pull
// parser (the verdicts must agree), the recording table (a structurally sound file always builds
// it, with the same summary), the writer (a sound file writes back to its bytes) and the layout
// detection rule; the many-inputs validate gives the input and its halves validate's reports.
#include <array>
#include <cstdint>

#include "invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace inputanim;
    using namespace inputanim::fuzz;
    const std::span<const std::byte> bytes = as_bytes(data, size);
    check_file(bytes);

    // Limits reach validate unchanged: its verdict is still the walk's under the same limits.
    limits tight;
    tight.max_keyframes_per_curve = 16;
    tight.max_total_keyframes = 64;
    tight.max_markers = 4;
    tight.max_marker_name_bytes = 8;
    for (const layout_choice choice : all_layout_choices) {
        const walk_result w = walk(bytes, read_options{choice, tight});
        const report r = validate(bytes, validate_options{level::structure, choice, tight});
        FUZZ_CHECK(r.error == w.error);
        if (r.error) check_error_shape(r.error, bytes, tight);
    }

    const std::array<std::span<const std::byte>, 3> inputs = {bytes, bytes.first(size / 2),
                                                              bytes.subspan(size / 2)};
    std::array<report, 3> reports;
    for (const layout_choice choice : all_layout_choices) {
        for (const level lvl : {level::structure, level::full}) {
            const validate_options o{lvl, choice, tight};
            validate(inputs, reports, o);
            for (std::size_t i = 0; i < inputs.size(); ++i) {
                const report single = validate(inputs[i], o);
                FUZZ_CHECK(reports[i].error == single.error);
                FUZZ_CHECK(same_summary(reports[i].summary, single.summary));
                FUZZ_CHECK(reports[i].warnings_found == single.warnings_found);
            }
        }
    }
    return 0;
}

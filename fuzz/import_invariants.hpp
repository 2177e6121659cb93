// What every importer's harness asserts (fuzz_import_*.cpp): bytes in, either a refused import,
// with a code of the import category and a model that is not used, or a model whose written bytes
// the validator accepts at level full under the same limits, and which reads back as itself.
#pragma once

#include <span>

#include "inputanim/import.hpp"
#include "invariants.hpp"

namespace inputanim::fuzz {

// Ceilings that keep one input's work small, as a server's would: the importers must check them
// before the work they size.
inline import_options fuzz_import_options() noexcept {
    import_options o;
    o.limits.max_bytes = 1 << 20;
    o.limits.max_keyframes_per_curve = 4096;
    o.limits.max_total_keyframes = 1 << 16;
    o.limits.max_markers = 256;
    o.limits.max_marker_name_bytes = 1024;
    return o;
}

inline void check_import(std::span<const std::byte> bytes, import_format format,
                         import_files* files = nullptr) {
    const import_options o = fuzz_import_options();
    model m;
    const import_result r = import_model(bytes, format, m, o, files);
    if (r.error) {
        FUZZ_CHECK(r.error.category() == import_error_category() ||
                   r.error == std::errc::not_enough_memory);
        return;
    }
    const std::vector<std::byte> written = write(m);
    // Read in the layout the model was written in: a v1.1 file does not say its layout, and the
    // automatic choice, which tries compact first, stops at a limit the compact reading passes.
    const layout_choice as_written =
        m.layout == layout::full ? layout_choice::full : layout_choice::compact;
    validate_options full;
    full.layout = as_written;
    full.limits = o.limits;
    full.limits.max_bytes = written.size();
    FUZZ_CHECK_OK(validate(written, full).error);
    model back;
    read_options read;
    read.layout = as_written;
    FUZZ_CHECK_OK(read_model(written, back, read));
    FUZZ_CHECK(same_model(back, m));
}

}  // namespace inputanim::fuzz

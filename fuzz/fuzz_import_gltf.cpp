// Raw bytes through the glTF importer, read as a .glb and as a .gltf (with no import_files, so
// an external buffer is refused): either a refusal (an import_error, or the memory an import
// could not have) or a model whose written bytes the validator accepts at level full, under the
// ceilings for strangers' uploads, which bound the work whatever the bytes announce.
#include <cstdint>
#include <system_error>
#include <vector>

#include "inputanim/import.hpp"
#include "invariants.hpp"

namespace inputanim::fuzz {
namespace {

void check_import(std::span<const std::byte> bytes, import_format f) {
    import_options o;
    o.limits = upload_limits();
    model m;
    const import_result r = import_model(bytes, f, m, o);
    if (r.error) {
        FUZZ_CHECK(r.error.category() == import_error_category() ||
                   r.error == std::errc::not_enough_memory);
        return;
    }
    validate_options check;
    check.level = level::full;
    check.limits = o.limits;
    check.limits.max_bytes = std::numeric_limits<std::uint64_t>::max();
    FUZZ_CHECK(validate(write(m), check).valid());
}

}  // namespace
}  // namespace inputanim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> bytes = inputanim::fuzz::as_bytes(data, size);
    inputanim::fuzz::check_import(bytes, inputanim::import_format::glb);
    inputanim::fuzz::check_import(bytes, inputanim::import_format::gltf);
    return 0;
}

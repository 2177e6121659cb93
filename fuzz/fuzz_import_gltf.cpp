// Raw bytes through the glTF importer, read as a .glb and as a .gltf with no import_files (an
// external buffer is refused): a refusal, or a recording the validator accepts
// (import_invariants.hpp).
#include <cstdint>

#include "import_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace inputanim;
    using namespace inputanim::fuzz;
    check_import(as_bytes(data, size), import_format::glb);
    check_import(as_bytes(data, size), import_format::gltf);
    return 0;
}

// Raw bytes through the CSV importer: a refusal, or a recording the validator accepts.
#include <cstdint>

#include "import_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace inputanim;
    using namespace inputanim::fuzz;
    check_import(as_bytes(data, size), import_format::csv);
    return 0;
}

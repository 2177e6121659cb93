// gzip streams for the tests of gzip input, made with zlib as gzip(1) makes them.
#pragma once

#include <span>

#include "support/builders.hpp"

namespace inputanim::testing {

// One gzip member holding `data`, at zlib compression `level` (0 stores, 9 squeezes hardest).
bytes gzip_compress(std::span<const std::byte> data, int level = 6);

}  // namespace inputanim::testing

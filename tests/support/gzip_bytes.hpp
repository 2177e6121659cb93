// gzip streams for the tests of gzip input, made with zlib as gzip(1) makes them.
#pragma once

#include <cstddef>
#include <span>

#include "support/builders.hpp"

namespace inputanim::testing {

// One gzip member holding `data`, at zlib compression `level` (0 stores, 9 squeezes hardest).
bytes gzip_compress(std::span<const std::byte> data, int level = 6);
// A gzip stream of `mib` MiB of zeros (a "bomb": about a thousandth of that compressed), as one
// member of a MiB repeated: gzip(1) reads members one after another as one stream, and building
// it costs a MiB of compression, not `mib`.
bytes gzip_of_zeros(std::size_t mib);

}  // namespace inputanim::testing

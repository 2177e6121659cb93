#include "support/gzip_bytes.hpp"

#include <zlib.h>

#include <gtest/gtest.h>

namespace inputanim::testing {

bytes gzip_compress(std::span<const std::byte> data, int level) {
    z_stream z{};
    // 15 + 16: the largest window, with the gzip wrapper.
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        ADD_FAILURE() << "deflateInit2 failed";
        return {};
    }
    bytes out(deflateBound(&z, static_cast<uLong>(data.size())));
    z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    EXPECT_EQ(rc, Z_STREAM_END) << "deflate did not finish in deflateBound's room";
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

bytes gzip_of_zeros(std::size_t mib) {
    const bytes member = gzip_compress(bytes(std::size_t{1} << 20), 9);
    bytes out;
    out.reserve(member.size() * mib);
    for (std::size_t i = 0; i < mib; ++i) out.insert(out.end(), member.begin(), member.end());
    return out;
}

}  // namespace inputanim::testing

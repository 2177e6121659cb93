// Damaged and hostile gzip input: truncated and corrupt streams are bad_compression (even when the
// recording inside looks whole), the recording's own error wins when it comes first, and a gzip
// bomb stops at the byte ceiling instead of inflating.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "detail/gzip_inflater.hpp"
#include "inputanim/input.hpp"
#include "support/builders.hpp"
#include "support/gzip_bytes.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using inputanim::detail::gzip_fault;
using inputanim::detail::gzip_inflater;

namespace {

// Inflates `compressed` in one write, discarding the output, and returns finish()'s verdict.
struct inflate_fault {
    gzip_fault code = gzip_fault::none;
    std::uint64_t offset = 0;
};
inflate_fault inflate_all(const bytes& compressed) {
    gzip_inflater inflater;
    inflater.write(view(compressed), [](std::span<const std::byte>) { return true; });
    return {inflater.finish(), inflater.fault_offset()};
}

// chunk_validator's verdict on `compressed`: a damaged stream is bad_compression.
error validator_fault(const bytes& compressed) {
    chunk_validator v;
    v.feed(view(compressed));
    return v.finish().error;
}

// The 8-byte gzip trailer: CRC-32, then the length mod 2^32, little-endian.
constexpr std::size_t trailer_size = 8;

TEST(GzipErrors, AnEmptyInputIsATruncatedStream) {
    const inflate_fault e = inflate_all({});
    EXPECT_EQ(e.code, gzip_fault::truncated);
    EXPECT_EQ(e.offset, 0u);
}

TEST(GzipErrors, EveryProperPrefixOfAStreamIsTruncatedWhereItEnds) {
    const bytes compressed = gzip_compress(small_file(shape::v11_compact));
    for (std::size_t n = 1; n < compressed.size(); ++n) {
        const bytes prefix(compressed.begin(), compressed.begin() + static_cast<std::ptrdiff_t>(n));
        const inflate_fault e = inflate_all(prefix);
        ASSERT_EQ(e.code, gzip_fault::truncated) << "prefix " << n;
        EXPECT_EQ(e.offset, n);
        // Through the front door: an invalid file, bad_compression where the stream ends (one
        // byte is not yet gzip: a recording cut short).
        if (n < 2) continue;
        const error v = validator_fault(prefix);
        ASSERT_EQ(v.code, errc::bad_compression) << "prefix " << n;
        EXPECT_EQ(v.offset, n);
    }
    EXPECT_EQ(inflate_all(gzip_compress(small_file(shape::v10), 1)).code, gzip_fault::none);
}

TEST(GzipErrors, AStreamCutBeforeItsTrailerIsTruncatedThoughTheRecordingInflatedWhole) {
    const bytes raw = small_file(shape::v11_compact);
    bytes compressed = gzip_compress(raw);
    compressed.erase(compressed.end() - trailer_size, compressed.end());
    chunk_validator v;
    EXPECT_EQ(v.feed(view(compressed)), stream_status::more);
    const report& r = v.finish();
    EXPECT_EQ(v.recording_bytes(), raw.size());
    EXPECT_EQ(r.error.code, errc::bad_compression);
    EXPECT_EQ(r.error.offset, compressed.size());
}

TEST(GzipErrors, AWrongChecksumOrLengthIsCorrupt) {
    const bytes compressed = gzip_compress(small_file(shape::v11_compact));
    bytes bad_crc = compressed;
    bad_crc[compressed.size() - trailer_size] ^= std::byte{1};
    error e = validator_fault(bad_crc);
    EXPECT_EQ(e.code, errc::bad_compression);
    // zlib finds the bad CRC once it has read it, inside the trailer.
    EXPECT_GT(e.offset, compressed.size() - trailer_size);
    EXPECT_LE(e.offset, compressed.size());

    bytes bad_length = compressed;
    bad_length[compressed.size() - 1] ^= std::byte{1};
    e = validator_fault(bad_length);
    EXPECT_EQ(e.code, errc::bad_compression);
    EXPECT_EQ(inflate_all(bad_length).code, gzip_fault::corrupt);
}

TEST(GzipErrors, AnUnknownCompressionMethodIsCorruptInTheHeader) {
    bytes compressed = gzip_compress(small_file(shape::v11_compact));
    // Byte 2 is the method: 8 (deflate) is the only one defined.
    compressed[2] = std::byte{7};
    const inflate_fault e = inflate_all(compressed);
    EXPECT_EQ(e.code, gzip_fault::corrupt);
    EXPECT_LE(e.offset, 10u);
    EXPECT_EQ(validator_fault(compressed).code, errc::bad_compression);
    EXPECT_LE(validator_fault(compressed).offset, 10u);
}

TEST(GzipErrors, DamagedDeflateDataIsCorrupt) {
    const bytes compressed = gzip_compress(small_file(shape::v10));
    // Whatever the damage does to the deflate blocks, the stream cannot end with a good CRC.
    for (std::size_t at = 10; at + trailer_size < compressed.size(); at += 17) {
        bytes damaged = compressed;
        damaged[at] ^= std::byte{0x55};
        EXPECT_NE(inflate_all(damaged).code, gzip_fault::none) << "byte " << at;
    }
}

TEST(GzipErrors, BytesAfterTheLastMemberMustStartAnotherOne) {
    const bytes member = gzip_compress(small_file(shape::v11_compact));
    for (const bytes& tail :
         {bytes{std::byte{0}}, bytes(512), bytes{std::byte{'x'}, std::byte{'y'}}}) {
        bytes stream = member;
        stream.insert(stream.end(), tail.begin(), tail.end());
        const inflate_fault e = inflate_all(stream);
        EXPECT_EQ(e.code, tail.size() < 2 ? gzip_fault::truncated : gzip_fault::corrupt)
            << tail.size() << " bytes after the member";
        EXPECT_GE(e.offset, member.size());
    }
}

TEST(GzipErrors, ARecordingThatIsNotCompressedIsCorruptAtItsFirstBytes) {
    const inflate_fault e = inflate_all(small_file(shape::v11_compact));
    EXPECT_EQ(e.code, gzip_fault::corrupt);
    EXPECT_LE(e.offset, 2u);
}

TEST(GzipErrors, TheRecordingsErrorWinsWhenItComesBeforeTheGzipFault) {
    bytes raw = small_file(shape::v11_compact);
    raw[0] = std::byte{0};
    bytes compressed = gzip_compress(raw);
    compressed[compressed.size() - trailer_size] ^= std::byte{1};
    chunk_validator v;
    EXPECT_EQ(v.feed(view(compressed)), stream_status::error);
    EXPECT_EQ(v.finish().error.code, errc::bad_magic);
}

TEST(GzipErrors, ADamagedStreamEndsTheValidationAtTheFeedThatFindsIt) {
    bytes compressed = gzip_compress(small_file(shape::v11_compact));
    compressed[compressed.size() - trailer_size] ^= std::byte{1};
    chunk_validator v;
    EXPECT_EQ(v.feed(view(compressed)), stream_status::error);
    EXPECT_EQ(v.result().error.code, errc::bad_compression);
    v.finish();
    EXPECT_EQ(v.result().error.code, errc::bad_compression);
}

// 32 MiB of zeros compress to about 32 KiB: a bomb of ratio 1000.
constexpr std::size_t bomb_size = std::size_t{32} << 20;
constexpr std::uint64_t ceiling = std::uint64_t{1} << 20;

TEST(GzipErrors, ASinkWithACeilingStopsABombWithinOnePiece) {
    const bytes bomb = gzip_compress(bytes(bomb_size), 9);
    ASSERT_LT(bomb.size(), bomb_size / 500);
    gzip_inflater inflater;
    std::uint64_t kept = 0;
    EXPECT_FALSE(inflater.write(view(bomb), [&](std::span<const std::byte> p) {
        if (p.size() > ceiling - kept) return false;
        kept += p.size();
        return true;
    }));
    EXPECT_TRUE(inflater.stopped());
    EXPECT_LE(kept, ceiling);
    EXPECT_LE(inflater.inflated_bytes(), ceiling + gzip_inflater::piece_size);
    EXPECT_LT(inflater.compressed_bytes(), bomb.size());
}

TEST(GzipErrors, MaxBytesAppliesToTheInflatedRecordingAndStopsTheInflation) {
    // A v1.1 file whose camera.position.x claims 2^31-1 compact keys, then zeros: structurally
    // nothing is wrong until the bytes run out, so only the ceiling can stop it.
    bytes raw(bomb_size);
    const bytes head = small_file(shape::v11_compact);
    std::memcpy(raw.data(), head.data(), 16);
    raw[16] = std::byte{1};  // camera only
    put_i32(raw, 19 + 8, 0x7fffffff);
    const bytes bomb = gzip_compress(raw, 9);

    chunk_validator v(validate_options{level::full, {}, limits{.max_bytes = ceiling}});
    EXPECT_EQ(v.feed(view(bomb)), stream_status::error);
    const report& r = v.finish();
    EXPECT_EQ(r.error.code, errc::limit_exceeded);
    EXPECT_EQ(r.error.limit, limit_kind::bytes);
    EXPECT_EQ(r.error.offset, ceiling);
    EXPECT_LE(v.recording_bytes(), ceiling + gzip_inflater::piece_size);
    EXPECT_LT(*v.compressed_bytes(), bomb.size());
}

}  // namespace

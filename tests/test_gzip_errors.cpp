// Damaged and hostile gzip input: truncated and corrupt streams are errors (even when the
// recording inside looks whole), the recording's own error wins when it comes first, and a gzip
// bomb stops at the byte ceiling instead of inflating.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "inputanim/gzip.hpp"
#include "support/builders.hpp"
#include "support/gzip_bytes.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// Inflates `compressed` in one write, discarding the output, and returns finish()'s verdict.
gzip_error inflate_all(const bytes& compressed) {
    gzip_inflater inflater;
    inflater.write(view(compressed), [](std::span<const std::byte>) { return true; });
    return inflater.finish();
}

gzip_error validator_fault(const bytes& compressed) {
    gzip_validator v;
    v.feed(view(compressed));
    v.finish();
    return v.gzip_fault();
}

// The 8-byte gzip trailer: CRC-32, then the length mod 2^32, little-endian.
constexpr std::size_t trailer_size = 8;

TEST(GzipErrors, AnEmptyInputIsATruncatedStream) {
    const gzip_error e = inflate_all({});
    EXPECT_EQ(e.code, gzip_errc::truncated);
    EXPECT_EQ(e.offset, 0u);
    EXPECT_EQ(e.message(), "the gzip stream is empty");
    EXPECT_EQ(gzip_error_name(e.code), "gzip_truncated");
}

TEST(GzipErrors, EveryProperPrefixOfAStreamIsTruncatedWhereItEnds) {
    const bytes compressed = gzip_compress(small_file(shape::v11_compact));
    for (std::size_t n = 1; n < compressed.size(); ++n) {
        const bytes prefix(compressed.begin(), compressed.begin() + static_cast<std::ptrdiff_t>(n));
        const gzip_error e = inflate_all(prefix);
        ASSERT_EQ(e.code, gzip_errc::truncated) << "prefix " << n;
        EXPECT_EQ(e.offset, n);
    }
    EXPECT_EQ(inflate_all(gzip_compress(small_file(shape::v10), 1)).code, gzip_errc::ok);
}

TEST(GzipErrors, AStreamCutBeforeItsTrailerIsTruncatedThoughTheRecordingInflatedWhole) {
    const bytes raw = small_file(shape::v11_compact);
    bytes compressed = gzip_compress(raw);
    compressed.erase(compressed.end() - trailer_size, compressed.end());
    gzip_validator v;
    EXPECT_EQ(v.feed(view(compressed)), stream_status::more);
    v.finish();
    EXPECT_EQ(v.inflated_bytes(), raw.size());
    EXPECT_EQ(v.gzip_fault().code, gzip_errc::truncated);
    EXPECT_EQ(v.gzip_fault().offset, compressed.size());
    EXPECT_EQ(v.gzip_fault().message(), "the gzip stream ends early after " +
                                            std::to_string(compressed.size()) +
                                            " compressed bytes");
}

TEST(GzipErrors, AWrongChecksumOrLengthIsCorrupt) {
    const bytes compressed = gzip_compress(small_file(shape::v11_compact));
    bytes bad_crc = compressed;
    bad_crc[compressed.size() - trailer_size] ^= std::byte{1};
    gzip_error e = validator_fault(bad_crc);
    EXPECT_EQ(e.code, gzip_errc::corrupt);
    EXPECT_STREQ(e.detail, "incorrect data check");
    EXPECT_EQ(gzip_error_name(e.code), "gzip_corrupt");

    bytes bad_length = compressed;
    bad_length[compressed.size() - 1] ^= std::byte{1};
    e = validator_fault(bad_length);
    EXPECT_EQ(e.code, gzip_errc::corrupt);
    EXPECT_STREQ(e.detail, "incorrect length check");
    EXPECT_EQ(e.message(), "the gzip stream is damaged (incorrect length check) after " +
                               std::to_string(e.offset) + " compressed bytes");
}

TEST(GzipErrors, AnUnknownCompressionMethodIsCorruptInTheHeader) {
    bytes compressed = gzip_compress(small_file(shape::v11_compact));
    // Byte 2 is the method: 8 (deflate) is the only one defined.
    compressed[2] = std::byte{7};
    const gzip_error e = inflate_all(compressed);
    EXPECT_EQ(e.code, gzip_errc::corrupt);
    EXPECT_STREQ(e.detail, "unknown compression method");
    EXPECT_LE(e.offset, 10u);
}

TEST(GzipErrors, DamagedDeflateDataIsCorrupt) {
    const bytes compressed = gzip_compress(small_file(shape::v10));
    // Whatever the damage does to the deflate blocks, the stream cannot end with a good CRC.
    for (std::size_t at = 10; at + trailer_size < compressed.size(); at += 17) {
        bytes damaged = compressed;
        damaged[at] ^= std::byte{0x55};
        const gzip_error e = inflate_all(damaged);
        EXPECT_NE(e.code, gzip_errc::ok) << "byte " << at;
    }
}

TEST(GzipErrors, BytesAfterTheLastMemberMustStartAnotherOne) {
    const bytes member = gzip_compress(small_file(shape::v11_compact));
    for (const bytes& tail :
         {bytes{std::byte{0}}, bytes(512), bytes{std::byte{'x'}, std::byte{'y'}}}) {
        bytes stream = member;
        stream.insert(stream.end(), tail.begin(), tail.end());
        const gzip_error e = inflate_all(stream);
        EXPECT_EQ(e.code, tail.size() < 2 ? gzip_errc::truncated : gzip_errc::corrupt)
            << tail.size() << " bytes after the member";
        EXPECT_GE(e.offset, member.size());
    }
}

TEST(GzipErrors, ARecordingThatIsNotCompressedIsCorruptAtItsFirstBytes) {
    const gzip_error e = inflate_all(small_file(shape::v11_compact));
    EXPECT_EQ(e.code, gzip_errc::corrupt);
    EXPECT_STREQ(e.detail, "incorrect header check");
    EXPECT_LE(e.offset, 2u);
}

TEST(GzipErrors, TheRecordingsErrorWinsWhenItComesBeforeTheGzipFault) {
    bytes raw = small_file(shape::v11_compact);
    raw[0] = std::byte{0};
    bytes compressed = gzip_compress(raw);
    compressed[compressed.size() - trailer_size] ^= std::byte{1};
    gzip_validator v;
    EXPECT_EQ(v.feed(view(compressed)), stream_status::error);
    EXPECT_EQ(v.finish().error.code, errc::bad_magic);
    EXPECT_FALSE(v.gzip_fault());
}

TEST(GzipErrors, ADamagedStreamEndsTheValidationAtTheFeedThatFindsIt) {
    bytes compressed = gzip_compress(small_file(shape::v11_compact));
    compressed[compressed.size() - trailer_size] ^= std::byte{1};
    gzip_validator v;
    EXPECT_EQ(v.feed(view(compressed)), stream_status::error);
    EXPECT_EQ(v.gzip_fault().code, gzip_errc::corrupt);
    v.finish();
    EXPECT_EQ(v.gzip_fault().code, gzip_errc::corrupt);
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

    gzip_validator v(validate_options{level::full, {}, limits{.max_bytes = ceiling}});
    EXPECT_EQ(v.feed(view(bomb)), stream_status::error);
    const report& r = v.finish();
    EXPECT_FALSE(v.gzip_fault());
    EXPECT_EQ(r.error.code, errc::limit_exceeded);
    EXPECT_EQ(r.error.limit, limit_kind::bytes);
    EXPECT_EQ(r.error.offset, ceiling);
    EXPECT_LE(v.inflated_bytes(), ceiling + gzip_inflater::piece_size);
    EXPECT_LT(v.compressed_bytes(), bomb.size());
}

}  // namespace

// The front door's refusals: FIFOs, directories, missing and unreadable files, damaged gzip
// (an invalid file: bad_compression), and gzip bombs stopped at the header or at the ceiling.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "inputanim/input.hpp"
#include "support/builders.hpp"
#include "support/gzip_bytes.hpp"
#include "support/run_process.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

TEST(InputErrors, AFifoIsRefusedAtOnceWithoutAWriter) {
    scratch_folder dir;
    const std::string fifo = (dir.path() / "f").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // Without O_NONBLOCK this open would wait for a writer forever.
    std::error_code ec;
    const input in = input::open(fifo, ec);
    EXPECT_FALSE(in.is_open());
    EXPECT_EQ(ec.category(), not_regular_file_category());
    EXPECT_EQ(ec.message(), "not a regular file (a FIFO); use - to read standard input");
    EXPECT_EQ(validate_file(fifo, {}).io, ec);
}

TEST(InputErrors, TheNotRegularFileCategoryNamesEachTypeInItsMessage) {
    const std::error_category& c = not_regular_file_category();
    EXPECT_STREQ(c.name(), "inputanim.not_regular_file");
    const std::vector<std::pair<mode_t, std::string>> types = {
        {S_IFIFO, "a FIFO"},
        {S_IFSOCK, "a socket"},
        {S_IFCHR, "a character device"},
        {S_IFBLK, "a block device"},
        // Any other value, a file type or not, is of an unknown type.
        {S_IFLNK, "of an unknown type"},
        {S_IFREG, "of an unknown type"},
        {static_cast<mode_t>(-1), "of an unknown type"},
        {static_cast<mode_t>(std::numeric_limits<int>::max()), "of an unknown type"},
    };
    for (const auto& [type, what] : types) {
        const std::error_code ec(static_cast<int>(type), c);
        EXPECT_EQ(ec.message(), "not a regular file (" + what + "); use - to read standard input");
        // A refusal of its own, equivalent to no std::errc condition.
        EXPECT_EQ(ec.default_error_condition(), std::error_condition(ec.value(), c)) << what;
    }
}

TEST(InputErrors, ADeviceIsRefused) {
    std::error_code ec;
    input::open("/dev/null", ec);
    EXPECT_EQ(ec.message(),
              "not a regular file (a character device); use - to read standard input");
}

TEST(InputErrors, ADirectoryIsRefused) {
    scratch_folder dir;
    std::error_code ec;
    input::open(dir.path().string(), ec);
    EXPECT_EQ(ec, std::errc::is_a_directory);
}

TEST(InputErrors, AMissingFileIsNoSuchFile) {
    scratch_folder dir;
    const file_check c = validate_file((dir.path() / "nothing.bin").string(), {});
    EXPECT_EQ(c.io, std::errc::no_such_file_or_directory);
}

TEST(InputErrors, AnUnreadableFileIsPermissionDenied) {
    if (::geteuid() == 0) GTEST_SKIP() << "root reads every file";
    scratch_folder dir;
    const std::string p = write_bytes(dir.path() / "secret.bin", small_file(shape::v10));
    ASSERT_EQ(::chmod(p.c_str(), 0), 0);
    std::error_code ec;
    input::open(p, ec);
    EXPECT_EQ(ec, std::errc::permission_denied);
}

TEST(InputErrors, ADamagedGzipFileIsInvalidWithBadCompressionAtTheCompressedOffset) {
    scratch_folder dir;
    bytes packed = gzip_compress(small_file(shape::v11_compact));
    const std::size_t cut = packed.size() / 2;
    packed.resize(cut);
    const file_check c = validate_file(write_bytes(dir.path() / "cut.gz", packed), {});
    EXPECT_FALSE(c.io);
    EXPECT_EQ(c.rep.error.code, errc::bad_compression);
    EXPECT_EQ(c.rep.error.offset, cut);

    std::error_code ec;
    input in = input::open((dir.path() / "cut.gz").string(), ec);
    std::vector<std::byte> storage;
    const whole_input w = read_whole(in, {}, storage);
    EXPECT_EQ(w.invalid.code, errc::bad_compression);
    EXPECT_EQ(w.invalid.offset, cut);
    EXPECT_TRUE(w.bytes.empty());
}

// gzip of 512 MiB of zeros: about 500 KiB compressed.
const bytes& zero_bomb() {
    static const bytes bomb = gzip_of_zeros(512);
    return bomb;
}

TEST(InputErrors, AGzipOfZerosIsBadMagicAfterOnePiece) {
    scratch_folder dir;
    const std::string p = write_bytes(dir.path() / "bomb.gz", zero_bomb());
    const file_check c = validate_file(p, {});
    EXPECT_EQ(c.rep.error.code, errc::bad_magic);
    EXPECT_EQ(c.rep.error.offset, 0u);
    EXPECT_LE(c.bytes, 64u * 1024);

    // Read whole (for random access): refused at the header, nothing kept.
    std::error_code ec;
    input in = input::open(p, ec);
    std::vector<std::byte> storage;
    const whole_input w = read_whole(in, {}, storage);
    EXPECT_EQ(w.invalid.code, errc::bad_magic);
    EXPECT_EQ(storage.capacity(), 0u);
}

TEST(InputErrors, ReadWholeStopsAtTheByteCeilingWithLimitExceeded) {
    // A v1.1 header whose first curve claims 2^31-1 keys, then zeros: only the ceiling stops it.
    bytes raw(std::size_t{8} << 20);
    const bytes head = small_file(shape::v11_compact);
    std::copy(head.begin(), head.begin() + 16, raw.begin());
    raw[16] = std::byte{1};
    put_i32(raw, 19 + 8, 0x7fffffff);
    scratch_folder dir;
    std::error_code ec;
    input in = input::open(write_bytes(dir.path() / "big.gz", gzip_compress(raw, 9)), ec);
    validate_options how;
    how.limits.max_bytes = std::uint64_t{1} << 20;
    std::vector<std::byte> storage;
    const whole_input w = read_whole(in, how, storage);
    EXPECT_EQ(w.invalid.code, errc::limit_exceeded);
    EXPECT_EQ(w.invalid.limit, limit_kind::bytes);
    EXPECT_EQ(w.invalid.offset, how.limits.max_bytes);
    EXPECT_TRUE(storage.empty());
}

TEST(InputErrors, AStreamCannotBeMapped) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    ::close(fds[1]);
    std::error_code ec;
    input stream = input::from_fd(fds[0], ec);
    ASSERT_FALSE(ec);
    EXPECT_EQ(stream.map(), std::errc::invalid_argument);
    EXPECT_FALSE(stream.is_mapped());
    EXPECT_EQ(input().map(), std::errc::invalid_argument);
}

TEST(InputErrors, ReadAtAndWriteAllPassTheSystemsErrorOn) {
    std::error_code ec;
    std::array<std::byte, 4> out{};
    EXPECT_EQ(read_at(-1, 0, out, ec), 0u);
    EXPECT_EQ(ec, std::errc::bad_file_descriptor);
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    // A pipe's read end cannot be written.
    EXPECT_EQ(write_all(fds[0], out), std::errc::bad_file_descriptor);
    ::close(fds[0]);
    ::close(fds[1]);
}

}  // namespace

// The front door (input.hpp): a path, `-` or a descriptor to bytes; regular files mapped, gzip
// recognised by content, and validate_file's verdict the same as validate() of the recording.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "inputanim/input.hpp"
#include "support/builders.hpp"
#include "support/gzip_bytes.hpp"
#include "support/run_process.hpp"
#include "support/validation_cases.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// A pipe whose read end is handed to from_fd, fed `b` by a thread then closed.
struct piped {
    int read_end = -1;
    std::thread writer;
    explicit piped(const bytes& b) {
        int fds[2];
        EXPECT_EQ(::pipe(fds), 0);
        read_end = fds[0];
        writer = std::thread([fd = fds[1], &b] {
            std::size_t done = 0;
            while (done < b.size()) {
                const ssize_t n = ::write(fd, b.data() + done, b.size() - done);
                if (n <= 0) break;
                done += static_cast<std::size_t>(n);
            }
            ::close(fd);
        });
    }
    ~piped() { writer.join(); }
};

// A recording of 9 MiB or more in `s` (past the size from which validate_input reads a structure
// by pread): the camera curves, the first curve's first key at `first` seconds, the others' at 0.
bytes large_recording(shape s, float first) {
    model m = empty_model(s);
    const std::size_t key_size =
        s == shape::v11_compact ? compact_keyframe_size : full_keyframe_size;
    const std::size_t count = (std::size_t{9} << 20) / (pose_channel_count * key_size) + 1;
    for (std::size_t c = 0; c < pose_channel_count; ++c) {
        auto& keys = m[camera_curve(static_cast<pose_channel>(c))].keys;
        const float start = c == 0 ? first : 0.0f;
        for (std::size_t i = 0; i < count; ++i) {
            keys.push_back(keyframe{start + static_cast<float>(i) / 60.0f, c == 6 ? 1.0f : 0.0f});
        }
    }
    return write(m);
}

// The bytes of the mapping at `at` resident in this process (/proc/self/smaps), or -1 when no
// mapping starts there.
long long resident_bytes(const void* at) {
    std::ostringstream start;
    start << std::hex << reinterpret_cast<std::uintptr_t>(at) << '-';
    std::ifstream smaps("/proc/self/smaps");
    bool found = false;
    for (std::string line; std::getline(smaps, line);) {
        if (line.rfind(start.str(), 0) == 0) found = true;
        if (found && line.rfind("Rss:", 0) == 0) return std::stoll(line.substr(4)) * 1024;
    }
    return -1;
}

TEST(Input, ARegularFileIsMappedWhole) {
    scratch_folder dir;
    const bytes raw = small_file(shape::v11_compact);
    std::error_code ec;
    input in = input::open(write_bytes(dir.path() / "a.bin", raw), ec);
    ASSERT_FALSE(ec) << ec.message();
    EXPECT_TRUE(in.is_mapped());
    ASSERT_EQ(in.mapped().size(), raw.size());
    EXPECT_TRUE(std::equal(raw.begin(), raw.end(), in.mapped().begin()));
}

TEST(Input, AnEmptyFileIsAnEmptyMapping) {
    scratch_folder dir;
    std::error_code ec;
    input in = input::open(write_bytes(dir.path() / "e.bin", {}), ec);
    ASSERT_FALSE(ec);
    EXPECT_TRUE(in.is_mapped());
    EXPECT_TRUE(in.mapped().empty());
}

TEST(Input, ValidateFileOfAPlainFileIsValidateOfItsBytes) {
    scratch_folder dir;
    const bytes raw = small_file(shape::v11_compact);
    const file_check c = validate_file(write_bytes(dir.path() / "a.bin", raw), {});
    EXPECT_FALSE(c.io);
    EXPECT_TRUE(c.rep.error == validate(view(raw)).error);
    EXPECT_EQ(c.bytes, raw.size());
    EXPECT_FALSE(c.compressed_bytes);
}

TEST(Input, TheStructureOfALargeFileIsCheckedByReadsWithoutTouchingItsMapping) {
    // Each first touch of a page of the mapping would be a page fault, and a page kept in memory:
    // a summary of a GiB would cost tens of MiB and a fault per curve.
    validate_options structure;
    structure.level = level::structure;
    scratch_folder dir;
    for (const shape s : {shape::v11_full, shape::v11_compact, shape::v10}) {
        // A negative first time: the warning reads the first key's time.
        const bytes raw = large_recording(s, -0.5f);
        ASSERT_GE(raw.size(), std::size_t{9} << 20);
        std::error_code ec;
        input in = input::open(write_bytes(dir.path() / "large.bin", raw), ec);
        ASSERT_FALSE(ec);
        const file_check c = validate_input(in, structure);
        EXPECT_FALSE(c.io);
        const report expected = validate(view(raw), structure);
        ASSERT_EQ(expected.warnings().size(), 1u) << shape_name(s);
        EXPECT_EQ(difference(expected, c.rep), "") << shape_name(s);
        EXPECT_EQ(resident_bytes(in.mapped().data()), 0) << shape_name(s);
    }
}

TEST(Input, ALargeFileWithABrokenStructureGetsValidatesVerdict) {
    // The reads are an accelerator: what they do not find sound is left to validate().
    validate_options structure;
    structure.level = level::structure;
    scratch_folder dir;
    bytes raw = large_recording(shape::v11_compact, 0.0f);
    raw.pop_back();
    const file_check c = validate_file(write_bytes(dir.path() / "cut.bin", raw), structure);
    EXPECT_FALSE(c.io);
    const report expected = validate(view(raw), structure);
    EXPECT_FALSE(expected.valid());
    EXPECT_EQ(difference(expected, c.rep), "");
}

TEST(Input, GzipIsRecognisedByContentWhateverTheName) {
    scratch_folder dir;
    const bytes raw = small_file(shape::v11_compact);
    const bytes packed = gzip_compress(raw);
    const file_check c = validate_file(write_bytes(dir.path() / "plain-name.bin", packed), {});
    EXPECT_FALSE(c.io);
    EXPECT_TRUE(c.rep.valid());
    EXPECT_EQ(c.bytes, raw.size());
    ASSERT_TRUE(c.compressed_bytes);
    EXPECT_EQ(*c.compressed_bytes, packed.size());
}

TEST(Input, ADescriptorOnAPipeIsReadAsAStream) {
    const bytes raw = small_file(shape::v10);
    for (const bytes& sent : {raw, gzip_compress(raw)}) {
        piped p(sent);
        std::error_code ec;
        input in = input::from_fd(p.read_end, ec);
        ASSERT_FALSE(ec);
        EXPECT_FALSE(in.is_mapped());
        const file_check c = validate_input(in, {});
        EXPECT_FALSE(c.io);
        EXPECT_TRUE(c.rep.valid());
        EXPECT_EQ(c.bytes, raw.size());
    }
}

TEST(Input, DashIsStandardInput) {
    // In a child whose standard input is a pipe: the test's own stdin stays as it is.
    const bytes packed = gzip_compress(small_file(shape::v11_compact));
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::dup2(fds[0], STDIN_FILENO);
        ::close(fds[0]);
        ::close(fds[1]);
        const file_check c = validate_file("-", {});
        std::_Exit(!c.io && c.rep.valid() && c.compressed_bytes ? 0 : 1);
    }
    ::close(fds[0]);
    EXPECT_EQ(::write(fds[1], packed.data(), packed.size()), static_cast<ssize_t>(packed.size()));
    ::close(fds[1]);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(Input, ReadWholeOfAMappedPlainFileIsItsMapping) {
    scratch_folder dir;
    const bytes raw = small_file(shape::v11_compact);
    std::error_code ec;
    input in = input::open(write_bytes(dir.path() / "a.bin", raw), ec);
    std::vector<std::byte> storage;
    const whole_input w = read_whole(in, {}, storage);
    EXPECT_TRUE(w.mapped);
    EXPECT_EQ(w.bytes.data(), in.mapped().data());
    EXPECT_TRUE(storage.empty());
}

TEST(Input, ReadWholeInflatesAGzipFileIntoStorageGrowingNoFurtherThanTheCeiling) {
    scratch_folder dir;
    const bytes raw = small_file(shape::v11_compact);
    std::error_code ec;
    input in = input::open(write_bytes(dir.path() / "a.gz", gzip_compress(raw)), ec);
    validate_options how;
    how.limits.max_bytes = raw.size();
    std::vector<std::byte> storage;
    const whole_input w = read_whole(in, how, storage);
    EXPECT_FALSE(w.io);
    EXPECT_FALSE(w.invalid);
    EXPECT_FALSE(w.mapped);
    ASSERT_EQ(w.bytes.size(), raw.size());
    EXPECT_TRUE(std::equal(raw.begin(), raw.end(), w.bytes.begin()));
    EXPECT_LE(storage.capacity(), raw.size());
}

TEST(Input, RecordingHeadInflatesTheFirstBytesOfAGzipFile) {
    scratch_folder dir;
    const bytes raw = small_file(shape::v11_compact);
    std::error_code ec;
    input in = input::open(write_bytes(dir.path() / "a.gz", gzip_compress(raw)), ec);
    std::array<std::byte, 4> head{};
    EXPECT_EQ(recording_head(in, head, ec), 4u);
    EXPECT_FALSE(ec);
    EXPECT_TRUE(std::equal(head.begin(), head.end(), raw.begin()));
}

TEST(Input, FromBytesIsAMappedCopyThatGzipIsRecognisedIn) {
    const bytes raw = small_file(shape::v11_compact);
    std::error_code ec;
    input plain = input::from_bytes(view(raw), ec);
    ASSERT_FALSE(ec) << ec.message();
    EXPECT_TRUE(plain.is_mapped());
    ASSERT_EQ(plain.mapped().size(), raw.size());
    EXPECT_TRUE(std::equal(raw.begin(), raw.end(), plain.mapped().begin()));
    input packed = input::from_bytes(view(gzip_compress(raw)), ec);
    ASSERT_FALSE(ec);
    const file_check c = validate_input(packed, {});
    EXPECT_TRUE(c.rep.valid());
    EXPECT_EQ(c.bytes, raw.size());
    EXPECT_TRUE(c.compressed_bytes);
}

TEST(Input, IsGzipTellsAGzipFileFromARecordingAndAStream) {
    scratch_folder dir;
    const bytes raw = small_file(shape::v11_compact);
    std::error_code ec;
    input plain = input::open(write_bytes(dir.path() / "a.bin", raw), ec);
    input packed = input::open(write_bytes(dir.path() / "a.bin.gz", gzip_compress(raw)), ec);
    input one = input::open(write_bytes(dir.path() / "one", {std::byte{0x1f}}), ec);
    EXPECT_FALSE(is_gzip(plain, ec));
    EXPECT_FALSE(ec);
    EXPECT_TRUE(is_gzip(packed, ec));
    EXPECT_FALSE(ec);
    EXPECT_FALSE(is_gzip(one, ec));
    const bytes sent = gzip_compress(raw);
    piped p(sent);
    input stream = input::from_fd(p.read_end, ec);
    // A stream is sniffed as it is read (chunk_validator), not before.
    EXPECT_FALSE(is_gzip(stream, ec));
    EXPECT_TRUE(validate_input(stream, {}).rep.valid());
}

TEST(Input, AFileOpenedForReadsIsNotMappedUntilAskedAndKnowsItsSize) {
    scratch_folder dir;
    const bytes raw = small_file(shape::v11_compact);
    std::error_code ec;
    input in = input::open(write_bytes(dir.path() / "a.bin", raw), ec, file_access::reads);
    ASSERT_FALSE(ec) << ec.message();
    EXPECT_FALSE(in.is_mapped());
    EXPECT_TRUE(in.mapped().empty());
    EXPECT_EQ(in.file_size(), raw.size());
    std::vector<std::byte> out(raw.size());
    EXPECT_EQ(read_at(in.descriptor(), 0, out, ec), raw.size());
    EXPECT_TRUE(out == raw);
    EXPECT_FALSE(is_gzip(in, ec));
    EXPECT_FALSE(ec);
    // Mapped when asked, once.
    EXPECT_FALSE(in.map());
    EXPECT_TRUE(in.is_mapped());
    ASSERT_EQ(in.mapped().size(), raw.size());
    EXPECT_TRUE(std::equal(raw.begin(), raw.end(), in.mapped().begin()));
    EXPECT_FALSE(in.map());
}

TEST(Input, AGzipFileOpenedForReadsIsToldByItsFirstBytes) {
    scratch_folder dir;
    const bytes packed = gzip_compress(small_file(shape::v11_compact));
    std::error_code ec;
    input in = input::open(write_bytes(dir.path() / "a.bin", packed), ec, file_access::reads);
    ASSERT_FALSE(ec);
    EXPECT_TRUE(is_gzip(in, ec));
    EXPECT_FALSE(ec);
}

TEST(Input, AStreamHasNoFileSize) {
    const bytes raw = small_file(shape::v11_compact);
    piped p(raw);
    std::error_code ec;
    input stream = input::from_fd(p.read_end, ec);
    ASSERT_FALSE(ec);
    EXPECT_FALSE(stream.file_size());
    EXPECT_FALSE(stream.stamp());
    EXPECT_TRUE(validate_input(stream, {}).rep.valid());
}

TEST(Input, ARegularFilesStampIsWhatStatSaysOfItsName) {
    scratch_folder dir;
    const bytes raw = small_file(shape::v11_compact);
    const std::string name = write_bytes(dir.path() / "a.bin", raw);
    struct stat st {};
    ASSERT_EQ(::stat(name.c_str(), &st), 0);
    for (const file_access access : {file_access::map, file_access::reads}) {
        std::error_code ec;
        const input in = input::open(name, ec, access);
        ASSERT_FALSE(ec) << ec.message();
        const std::optional<file_stamp> stamp = in.stamp();
        ASSERT_TRUE(stamp);
        EXPECT_EQ(stamp->size, raw.size());
        EXPECT_EQ(stamp->mtime_ns,
                  std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec);
        EXPECT_EQ(stamp->inode, st.st_ino);
    }
}

TEST(Input, APartOfAFileHasNoStampOfItsOwn) {
    scratch_folder dir;
    std::error_code ec;
    const input whole =
        input::open(write_bytes(dir.path() / "a.bin", small_file(shape::v11_compact)), ec);
    ASSERT_FALSE(ec);
    const input part = input::part(whole, 4, 8, ec);
    ASSERT_FALSE(ec);
    EXPECT_TRUE(whole.stamp());
    EXPECT_FALSE(part.stamp());
}

TEST(Input, StartsLikeGzipIsTheTwoBytesOfGzip) {
    const bytes raw = small_file(shape::v11_compact);
    const bytes packed = gzip_compress(raw);
    EXPECT_TRUE(starts_like_gzip(view(packed)));
    EXPECT_TRUE(starts_like_gzip(view(packed).first(2)));
    EXPECT_FALSE(starts_like_gzip(view(packed).first(1)));
    EXPECT_FALSE(starts_like_gzip({}));
    EXPECT_FALSE(starts_like_gzip(view(raw)));
}

TEST(Input, StartsLikeRecordingIsTheMagicOrAPrefixOfIt) {
    const bytes raw = small_file(shape::v11_compact);
    const std::span<const std::byte> all = view(raw);
    EXPECT_TRUE(starts_like_recording(all));
    EXPECT_TRUE(starts_like_recording(all.first(3)));
    EXPECT_TRUE(starts_like_recording({}));
    bytes other = raw;
    other[5] ^= std::byte{1};
    EXPECT_FALSE(starts_like_recording(view(other)));
    EXPECT_FALSE(starts_like_recording(view(gzip_compress(raw))));
}

TEST(Input, AWalkFindsARecordingByItsFirstBytesOrA2019LayoutWithAKey) {
    const model m = small_model(shape::v10);
    const bytes june = write_2019(m, edition::june_2019);
    const bytes raw = small_file(shape::v11_compact);
    const std::size_t empty_june = 389 * 12 + 4;
    const std::vector<std::pair<bytes, bool>> cases = {
        {raw, true},
        // Cut short inside the magic or after it: a damaged recording.
        {bytes(raw.begin(), raw.begin() + 3), true},
        {bytes(raw.begin(), raw.begin() + 100), true},
        {{}, true},
        {june, true},
        // A 2019 beginning cut short, and NUL bytes that walk as a June 2019 file of no keys.
        {bytes(june.begin(), june.begin() + 100), false},
        {bytes(empty_june, std::byte{0}), false},
        {bytes(1, std::byte{'x'}), false},
        {bytes(4096, std::byte{'t'}), false},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        for (const bool gzip : {false, true}) {
            const bytes content = gzip ? gzip_compress(view(cases[i].first)) : cases[i].first;
            std::error_code ec;
            input in = input::from_bytes(content, ec);
            ASSERT_FALSE(ec);
            const file_check c = validate_input(in, {});
            EXPECT_EQ(found_recording(c), cases[i].second) << i << (gzip ? " gzip" : "");
            // A stream gives its first bytes as a mapped file does.
            chunk_validator v;
            v.feed(content);
            v.finish();
            EXPECT_TRUE(std::equal(v.head().begin(), v.head().end(), c.head.begin(),
                                   c.head.begin() + static_cast<long>(c.head_size)))
                << i;
        }
    }
}

TEST(Input, ReadAtReadsFromAnOffsetUpToTheEnd) {
    scratch_folder dir;
    const bytes raw = small_file(shape::v10);
    std::error_code ec;
    input in = input::open(write_bytes(dir.path() / "a.bin", raw), ec);
    std::vector<std::byte> out(16);
    EXPECT_EQ(read_at(in.descriptor(), 10, out, ec), out.size());
    EXPECT_FALSE(ec);
    EXPECT_TRUE(std::equal(out.begin(), out.end(), raw.begin() + 10));
    // Fewer only where the file ends.
    EXPECT_EQ(read_at(in.descriptor(), raw.size() - 4, out, ec), 4u);
    EXPECT_EQ(read_at(in.descriptor(), raw.size(), out, ec), 0u);
    EXPECT_FALSE(ec);
}

TEST(Input, WriteAllWritesEveryByteThroughAPipe) {
    // More than a pipe holds at once, so that the write is taken in several parts.
    const bytes sent(std::size_t{1} << 20, std::byte{7});
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    std::vector<std::byte> got;
    std::thread reader([&] {
        std::array<std::byte, 4096> chunk;
        for (ssize_t n; (n = ::read(fds[0], chunk.data(), chunk.size())) > 0;) {
            got.insert(got.end(), chunk.begin(), chunk.begin() + n);
        }
    });
    EXPECT_FALSE(write_all(fds[1], view(sent)));
    ::close(fds[1]);
    reader.join();
    ::close(fds[0]);
    EXPECT_EQ(got.size(), sent.size());
}

TEST(ChunkValidator, PlainChunksGiveTheStreamValidatorsReport) {
    const bytes raw = small_file(shape::v11_compact);
    for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, raw.size()}) {
        chunk_validator v;
        for (std::size_t pos = 0; pos < raw.size(); pos += chunk) {
            v.feed(std::span(raw).subspan(pos, std::min(chunk, raw.size() - pos)));
        }
        stream_validator s;
        s.feed(view(raw));
        EXPECT_TRUE(v.finish().error == s.finish().error) << chunk;
        EXPECT_FALSE(v.gzip());
        EXPECT_FALSE(v.compressed_bytes());
    }
}

// What a receiver gets: the recording's bytes in order (inflated for gzip), each piece after the
// validator took it; and a receiver that says stop stops the input.
class keeping_receiver final : public recording_receiver {
  public:
    explicit keeping_receiver(std::size_t stop_after = std::numeric_limits<std::size_t>::max())
        : stop_after_(stop_after) {}
    bool receive(std::span<const std::byte> piece) noexcept override {
        kept.insert(kept.end(), piece.begin(), piece.end());
        ++pieces;
        return kept.size() < stop_after_;
    }
    bytes kept;
    std::size_t pieces = 0;

  private:
    std::size_t stop_after_;
};

TEST(ChunkValidator, AReceiverGetsEveryRecordingByteInOrderPlainOrInflated) {
    const bytes raw = small_file(shape::v11_full);
    for (const bool gzip : {false, true}) {
        const bytes input = gzip ? gzip_compress(view(raw)) : raw;
        for (std::size_t chunk : {std::size_t{1}, std::size_t{5}, input.size()}) {
            chunk_validator v;
            keeping_receiver r;
            v.pass_to(&r);
            for (std::size_t pos = 0; pos < input.size(); pos += chunk) {
                v.feed(std::span(input).subspan(pos, std::min(chunk, input.size() - pos)));
            }
            EXPECT_TRUE(v.finish().valid());
            EXPECT_EQ(r.kept, raw) << gzip << " " << chunk;
            EXPECT_FALSE(v.stopped());
            ASSERT_TRUE(v.layout_known());
            EXPECT_EQ(v.layout_known()->layout, layout::full);
        }
    }
}

TEST(ChunkValidator, AReceiverThatSaysStopStopsTheInput) {
    const bytes raw = small_file(shape::v11_compact);
    for (const bool gzip : {false, true}) {
        const bytes input = gzip ? gzip_compress(view(raw)) : raw;
        chunk_validator v;
        keeping_receiver r(1);
        v.pass_to(&r);
        EXPECT_EQ(v.feed(std::span(input).first(input.size() / 2)), stream_status::error);
        EXPECT_TRUE(v.stopped());
        EXPECT_EQ(r.pieces, 1u);
        EXPECT_EQ(v.feed(std::span(input).subspan(input.size() / 2)), stream_status::error);
        EXPECT_EQ(r.pieces, 1u) << "nothing after the stop";
        // The verdict so far is no error: the receiver knows why it stopped.
        EXPECT_TRUE(v.finish().valid());
    }
}

}  // namespace

// read_content: whatever the content's format (the importers'), the bytes whole, inflated when
// they are gzip, up to a ceiling.
namespace {

bytes text_bytes(const std::string& text) {
    const auto b = std::as_bytes(std::span(text.data(), text.size()));
    return bytes(b.begin(), b.end());
}

}  // namespace

TEST(ReadContent, AFileIsReadWholeAndGzipInflated) {
    const bytes text = text_bytes("t,camera.position.x\n0,1\n");
    for (const bool gzip : {false, true}) {
        std::error_code ec;
        input in = input::from_bytes(gzip ? gzip_compress(text) : text, ec);
        ASSERT_FALSE(ec);
        std::vector<std::byte> out;
        EXPECT_FALSE(read_content(in, 1000, out, ec));
        EXPECT_FALSE(ec);
        EXPECT_EQ(bytes(out.begin(), out.end()), text) << (gzip ? "gzip" : "plain");
    }
}

TEST(ReadContent, AStreamIsReadToItsEnd) {
    const bytes text = text_bytes(std::string(200'000, 'x'));
    piped p(text);
    std::error_code ec;
    input in = input::from_fd(p.read_end, ec);
    ASSERT_FALSE(ec);
    std::vector<std::byte> out;
    EXPECT_FALSE(read_content(in, text.size(), out, ec));
    EXPECT_FALSE(ec);
    EXPECT_EQ(out.size(), text.size());
}

TEST(ReadContent, PastTheCeilingNothingIsKept) {
    const bytes text = text_bytes(std::string(5000, 'x'));
    for (const bool gzip : {false, true}) {
        std::error_code ec;
        input in = input::from_bytes(gzip ? gzip_compress(text) : text, ec);
        std::vector<std::byte> out;
        const error e = read_content(in, 4999, out, ec);
        EXPECT_EQ(e.code, errc::limit_exceeded);
        EXPECT_EQ(e.limit, limit_kind::bytes);
        EXPECT_FALSE(ec);
        EXPECT_TRUE(out.empty());
    }
}

TEST(ReadContent, DamagedGzipIsBadCompression) {
    bytes z = gzip_compress(text_bytes(std::string(5000, 'x')));
    z.resize(z.size() - 6);
    std::error_code ec;
    input in = input::from_bytes(z, ec);
    std::vector<std::byte> out;
    EXPECT_EQ(read_content(in, 100'000, out, ec).code, errc::bad_compression);
    EXPECT_TRUE(out.empty());
}

// Specification of recording::open_by_reads: on a structurally sound file it builds the table
// and summary open() builds, with its keyframe views in the mapping given, without reading the
// mapping; on anything else it declines (false, an empty recording) and leaves the verdict to
// open(). And of open() under `automatic` on a v1.1 file: the reader's table and error, whichever
// layout its choice takes.
#include <sys/mman.h>

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "support/builders.hpp"
#include "support/bytes_source.hpp"
#include "support/validation_cases.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// Address space the size of the file that cannot be read at all: a walk that read it would die
// with SIGSEGV.
class unreadable_region {
  public:
    explicit unreadable_region(std::size_t size) : size_(size == 0 ? 1 : size) {
        p_ = ::mmap(nullptr, size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
    ~unreadable_region() { ::munmap(p_, size_); }
    unreadable_region(const unreadable_region&) = delete;
    unreadable_region& operator=(const unreadable_region&) = delete;
    std::span<const std::byte> bytes(std::size_t size) const {
        return {static_cast<const std::byte*>(p_), size};
    }

  private:
    std::size_t size_;
    void* p_;
};

void expect_same_table(const recording& a, const recording& b) {
    EXPECT_EQ(summary_difference(a.summary(), b.summary()), "");
    EXPECT_EQ(a.summary().bytes, b.summary().bytes);
    EXPECT_EQ(a.header().layout, b.header().layout);
    EXPECT_EQ(a.header().curve_count, b.header().curve_count);
    ASSERT_EQ(a.curves().size(), b.curves().size());
    for (std::size_t i = 0; i < a.curves().size(); ++i) {
        const curve_view& x = a.curves()[i];
        const curve_view& y = b.curves()[i];
        EXPECT_EQ(x.id, y.id);
        EXPECT_EQ(x.index, y.index);
        EXPECT_EQ(x.kind, y.kind);
        EXPECT_EQ(x.pre_wrap, y.pre_wrap);
        EXPECT_EQ(x.post_wrap, y.post_wrap);
        EXPECT_EQ(x.offset, y.offset);
        EXPECT_EQ(x.keys.data(), y.keys.data());
        EXPECT_EQ(x.keys.size(), y.keys.size());
        EXPECT_EQ(x.keys.stride(), y.keys.stride());
        EXPECT_EQ(a.find(x.id), &x);
        EXPECT_EQ(b.find(y.id), &y);
    }
    ASSERT_EQ(a.markers().size(), b.markers().size());
    auto m = b.markers().begin();
    for (const marker_view& x : a.markers()) {
        EXPECT_EQ(x.offset, m->offset);
        EXPECT_EQ(x.name, m->name);
        ++m;
    }
}

std::vector<read_options> every_layout_choice() {
    std::vector<read_options> out;
    for (const layout_choice l :
         {layout_choice::automatic, layout_choice::compact, layout_choice::full,
          layout_choice::june_2019, layout_choice::may_2019}) {
        out.push_back(read_options{l, {}});
    }
    return out;
}

}  // namespace

TEST(RecordingByReads, SoundFilesGiveTheTableOpenGivesOthersAreDeclined) {
    for (const bytes& b : mixed_files()) {
        const bytes_source file(b);
        for (const read_options& o : every_layout_choice()) {
            recording walked;
            const error e = walked.open(view(b), o);
            recording read;
            const bool done = read.open_by_reads(view(b), file, o);
            // The 2019 layouts are left to open().
            EXPECT_EQ(done, !e && walked.header().edition == edition::v1)
                << describe(e) << " (" << b.size() << " bytes)";
            if (done) {
                expect_same_table(walked, read);
            } else {
                EXPECT_TRUE(read.curves().empty());
                EXPECT_EQ(read.summary().curves, 0u);
            }
        }
    }
}

TEST(RecordingByReads, TheMappingIsNotRead) {
    for (const shape s : all_shapes) {
        const bytes b = small_file(s);
        const bytes_source file(b);
        const unreadable_region region(b.size());
        recording walked;
        ASSERT_FALSE(walked.open(view(b)));
        recording read;
        ASSERT_TRUE(read.open_by_reads(region.bytes(b.size()), file)) << shape_name(s);
        EXPECT_EQ(summary_difference(walked.summary(), read.summary()), "");
        ASSERT_EQ(read.curves().size(), walked.curves().size());
        for (std::size_t i = 0; i < read.curves().size(); ++i) {
            EXPECT_EQ(read.curves()[i].keys.data() - region.bytes(b.size()).data(),
                      walked.curves()[i].keys.data() - view(b).data());
        }
    }
}

TEST(RecordingByReads, LimitsAndLongMarkerListsAreLeftToOpen) {
    const bytes b = small_file(shape::v11_compact);
    const bytes_source file(b);
    read_options o;
    o.limits.max_markers = 1;
    recording walked;
    EXPECT_EQ(walked.open(view(b), o).code, errc::limit_exceeded);
    recording read;
    EXPECT_FALSE(read.open_by_reads(view(b), file, o));

    model m = small_model(shape::v11_compact);
    m.markers = std::vector<marker>(400, marker{1.0f, "a marker name of some length"});
    const bytes many = write(m);
    const bytes_source long_list(many);
    recording all;
    EXPECT_FALSE(all.open(view(many)));
    EXPECT_FALSE(read.open_by_reads(view(many), long_list));
}

TEST(RecordingByReads, AFileShorterThanTheMappingIsDeclined) {
    const bytes b = small_file(shape::v11_full);
    const bytes_source file(
        bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(b.size() / 2)));
    recording read;
    // The mapping claims the whole file; the reads find it cut.
    EXPECT_FALSE(read.open_by_reads(view(b), file));
    EXPECT_TRUE(read.curves().empty());
}

// The walk by reads feeds the bytes around each curve boundary: a read that ends where the marker
// list ends must not hide a byte after it. A full curve's last key (28 bytes), three empty curves
// (12 each) and an empty marker list (4) fill one read exactly.
TEST(RecordingByReads, AByteAfterTheMarkerListIsFoundWhereverTheReadsEnd) {
    for (std::size_t empty_at_end = 0; empty_at_end < 6; ++empty_at_end) {
        SCOPED_TRACE(empty_at_end);
        model m = small_model(shape::v11_full);
        const file_header h = v1_header(1, 1, layout::full, m.blocks);
        for (std::size_t i = 0; i < h.curve_count; ++i) {
            std::vector<keyframe>& keys = m[curve_at(h.blocks, i)].keys;
            keys.clear();
            if (i + empty_at_end < h.curve_count) keys.push_back(keyframe{0.0f, 0.0f});
        }
        m.markers = std::vector<marker>{};
        bytes b = write(m);
        b.push_back(std::byte{0});
        const bytes_source file(b);
        recording walked;
        EXPECT_EQ(walked.open(view(b), read_options{layout_choice::full}).code,
                  errc::trailing_bytes);
        recording read;
        EXPECT_FALSE(read.open_by_reads(view(b), file, read_options{layout_choice::full}));
    }
}

TEST(RecordingByReads, AFileThatCannotBeReadIsDeclined) {
    const bytes b = small_file(shape::v11_full);
    recording read;
    EXPECT_FALSE(read.open_by_reads(view(b), failing_source(std::errc::io_error)));
    EXPECT_TRUE(read.curves().empty());
    EXPECT_EQ(read.summary().curves, 0u);
}

namespace {

// What the pull reader under `options` yields of `b`: its header, the curves (id, offset, key
// count) and the error it ends with.
struct pulled {
    file_header header{};
    std::vector<std::tuple<curve_id, std::uint64_t, std::size_t>> curves;
    error end{};
};
pulled pull(const bytes& b, const read_options& options) {
    pulled p;
    reader r(view(b), options);
    item it = r.next();
    for (; it == item::curve || it == item::marker; it = r.next()) {
        if (it == item::curve)
            p.curves.emplace_back(r.curve().id, r.curve().offset, r.curve().keys.size());
    }
    p.header = r.header();
    p.end = it == item::error ? r.error() : error{};
    return p;
}

}  // namespace

// recording::open walks each candidate layout of a v1.1 file under `automatic` into its table as
// the reader chooses between them, and keeps the walk when the chosen one was the last: whichever
// candidate wins, and whether or not it is sound, the table and the error are the reader's.
TEST(RecordingOpen, AV11FileUnderAutomaticIsWhatTheReaderReadsWhicheverLayoutIsChosen) {
    std::vector<std::pair<std::string, bytes>> files;
    files.emplace_back("sound compact", small_file(shape::v11_compact));
    files.emplace_back("sound full", small_file(shape::v11_full));
    {
        const model m = small_model(shape::v11_full);
        bytes b = write(m);
        put_i32(b, curve_offset(m, 394), 3);
        files.emplace_back("full damaged, its walk the further", b);
    }
    {
        bytes b = small_file(shape::v11_compact);
        b.resize(b.size() - 1);
        files.emplace_back("compact cut, its walk the further", b);
    }
    {
        bytes b = small_file(shape::v11_full);
        put_i32(b, 19, 16);
        files.emplace_back("both walks fail at the first curve", b);
    }
    for (const auto& [what, b] : files) {
        SCOPED_TRACE(what);
        // A limit stops a walk soundly: the first candidate is then the choice.
        limits tight;
        tight.max_total_keyframes = 3;
        for (const limits& lim : {limits{}, tight}) {
            const read_options options{layout_choice::automatic, lim};
            const pulled expected = pull(b, options);
            recording rec;
            EXPECT_EQ(rec.open(view(b), options), expected.end);
            EXPECT_EQ(rec.header().layout, expected.header.layout);
            ASSERT_EQ(rec.curves().size(), expected.curves.size());
            for (std::size_t i = 0; i < rec.curves().size(); ++i) {
                const curve_view& c = rec.curves()[i];
                EXPECT_EQ(std::make_tuple(c.id, c.offset, c.keys.size()), expected.curves[i]);
                EXPECT_EQ(rec.find(c.id), &c);
            }
        }
    }
}

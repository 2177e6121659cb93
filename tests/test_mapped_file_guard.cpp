// A file truncated by someone else while it is mapped: reads inside a guard end with an I/O
// error and the process lives on; faults outside any guard keep killing the process. Bytes held
// with where they live (held_bytes) are read under the guard only when they are a mapping.
#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/builders.hpp"
#include "support/seed.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// A valid recording of many pages: 7 camera curves of 4000 full keyframes (about 780 KiB).
bytes long_recording() {
    model m = empty_model(shape::v11_full);
    for (std::size_t c = 0; c < pose_channel_count; ++c) {
        auto& keys = m[camera_curve(static_cast<pose_channel>(c))].keys;
        for (int i = 0; i < 4000; ++i) {
            keys.push_back(keyframe{static_cast<float>(i) / 60.0f, c == 6 ? 1.0f : 0.0f});
        }
    }
    return write(m);
}

// A file in the temporary folder, removed at the end of the test; `cut` truncates it through a
// descriptor of its own, as another process would.
class temp_file {
  public:
    explicit temp_file(const bytes& content) {
        static std::atomic<int> counter{0};
        path_ = std::filesystem::temp_directory_path() /
                ("inputanim-guard-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) +
                 ".bin");
        std::ofstream out(path_, std::ios::binary);
        out.write(reinterpret_cast<const char*>(content.data()),
                  static_cast<std::streamsize>(content.size()));
        out.close();
        fd_ = ::open(path_.c_str(), O_WRONLY);
    }
    ~temp_file() {
        std::filesystem::remove(path_);
        if (fd_ >= 0) ::close(fd_);
    }
    temp_file(const temp_file&) = delete;
    temp_file& operator=(const temp_file&) = delete;

    const std::filesystem::path& path() const { return path_; }
    void cut(off_t size) const {
        ASSERT_GE(fd_, 0);
        ASSERT_EQ(::ftruncate(fd_, size), 0);
    }
    // Removes the name now, the file living on through its mappings and descriptor: a death
    // test's child (which runs the test again, under the "threadsafe" style) dies without
    // running destructors and would leave its file behind.
    void remove_name() const { std::filesystem::remove(path_); }

  private:
    std::filesystem::path path_;
    int fd_ = -1;
};

mapped_file map(const temp_file& f) {
    std::error_code ec;
    mapped_file m = mapped_file::open(f.path(), ec);
    EXPECT_FALSE(ec) << ec.message();
    return m;
}

const std::error_code io_error = std::make_error_code(std::errc::io_error);

// Reads every keyframe field of the reader's curve; the sum keeps the reads from being dropped.
float read_all_keys(const reader& r) {
    float sum = 0.0f;
    for (const keyframe_view k : r.curve().keys) sum += k.time() + k.value() + k.in_weight();
    return sum;
}

}  // namespace

TEST(MappedFileGuard, AWalkOverAnUnchangedFileSucceedsAndReturnsItsResult) {
    const temp_file file(long_recording());
    const mapped_file m = map(file);
    report rep;
    const std::error_code ec = m.guard([&] { rep = validate(m.bytes()); });
    EXPECT_FALSE(ec) << ec.message();
    EXPECT_TRUE(rep.valid()) << rep.error.message();
    EXPECT_EQ(rep.summary.keyframes, 7u * 4000u);
}

TEST(MappedFileGuard, TruncationInTheMiddleOfAWalkIsAnIoErrorAndTheProcessLivesOn) {
    const bytes content = long_recording();
    const temp_file file(content);
    const mapped_file m = map(file);
    ASSERT_EQ(m.size(), content.size());

    std::size_t curves_read = 0;
    bool finished = false;
    float sum = 0.0f;
    const std::error_code ec = m.guard([&] {
        reader r(m.bytes());
        for (item it = r.next(); it == item::curve; it = r.next()) {
            sum += read_all_keys(r);
            // After the first curve, another writer cuts the file to one page.
            if (++curves_read == 1) file.cut(4096);
        }
        finished = true;
    });
    EXPECT_EQ(ec, io_error);
    EXPECT_EQ(curves_read, 1u);
    EXPECT_FALSE(finished);

    // The process is alive and the next guarded walk over a sound file works.
    const temp_file other(small_file(shape::v11_compact));
    const mapped_file good = map(other);
    report rep;
    EXPECT_FALSE(good.guard([&] { rep = validate(good.bytes()); }));
    EXPECT_TRUE(rep.valid()) << rep.error.message();
}

TEST(MappedFileGuard, ValidatingAFileTruncatedAfterMappingIsAnIoErrorAtTheFirstLostByte) {
    const temp_file file(long_recording());
    const mapped_file m = map(file);
    file.cut(0);
    const report rep = validate(m.bytes());
    EXPECT_EQ(rep.error.code, errc::io_error);
    EXPECT_EQ(rep.error.offset, 0u);
}

TEST(MappedFileGuard, GuardingSeveralMappingsNamesTheOneThatWasCut) {
    const temp_file a(long_recording());
    const temp_file b(long_recording());
    const temp_file c(long_recording());
    const mapped_file ma = map(a);
    const mapped_file mb = map(b);
    const mapped_file mc = map(c);
    const std::array<std::span<const std::byte>, 3> regions = {ma.bytes(), mb.bytes(), mc.bytes()};
    std::array<report, 3> reports;

    EXPECT_EQ(guarded_each(regions, [&] { validate(regions, reports); }), 3u);
    for (const report& r : reports) EXPECT_TRUE(r.valid()) << r.error.message();

    b.cut(0);
    bool finished = false;
    EXPECT_EQ(guarded_each(regions,
                           [&] {
                               // Every byte, as a walk would read them.
                               for (const auto& region : regions) {
                                   for (const std::byte& x : region) {
                                       const volatile std::byte sink = x;
                                       (void)sink;
                                   }
                               }
                               finished = true;
                           }),
              1u);
    EXPECT_FALSE(finished);

    // The guards are gone and the process lives on: the other mappings still read.
    EXPECT_TRUE(validate(ma.bytes()).valid());
    EXPECT_EQ(guarded_each(std::span(regions).subspan(2), [] {}), 1u);
}

TEST(MappedFileGuard, ValidateOfSeveralMappingsReportsTheCutOneAsAnIoError) {
    const temp_file a(long_recording());
    const temp_file b(long_recording());
    const mapped_file ma = map(a);
    const mapped_file mb = map(b);
    const std::array<std::span<const std::byte>, 2> regions = {ma.bytes(), mb.bytes()};
    std::array<report, 2> reports;
    a.cut(0);
    validate(regions, reports);
    EXPECT_EQ(reports[0].error.code, errc::io_error);
    EXPECT_EQ(reports[0].error.offset, 0u);
    EXPECT_TRUE(reports[1].valid()) << reports[1].error.message();
    EXPECT_EQ(validate(ma.bytes()).error.code, errc::io_error);
}

TEST(MappedFileGuard, ValidateOnSeveralThreadsSurvivesACutWhileItChecksKeys) {
    // A truncation before the content checks is met by the structure walk, which reads every
    // curve's last key; one while the threads check keys is met by whichever thread reads past
    // the new end, and each thread guards its own reads. The cut comes at a random moment: the
    // verdict is an io_error, or the whole report if the checks were done by then.
    model m = empty_model(shape::v11_full, false);
    for (std::size_t c = 0; c < pose_channel_count; ++c) {
        auto& keys = m[camera_curve(static_cast<pose_channel>(c))].keys;
        for (int i = 0; i < 200000; ++i) {
            keys.push_back(keyframe{static_cast<float>(i) / 60.0f, c == 6 ? 1.0f : 0.0f});
        }
    }
    const bytes content = write(m);
    std::mt19937 rng(test_seed(5));
    int cut_in_time = 0;
    for (int round = 0; round < 8; ++round) {
        const temp_file file(content);
        const mapped_file mapping = map(file);
        report rep;
        std::jthread cutter([&] {
            std::this_thread::sleep_for(std::chrono::microseconds(rng() % 3000));
            file.cut(static_cast<off_t>(content.size() / 3));
        });
        validate_options four;
        four.threads = 4;
        four.min_part_bytes = 1;
        rep = validate(mapping.bytes(), four);
        cutter.join();
        if (rep.error.code == errc::io_error) {
            EXPECT_GE(rep.error.offset, content.size() / 3 / 4096 * 4096);
            ++cut_in_time;
        } else {
            EXPECT_TRUE(rep.valid()) << rep.error.message();
        }
    }
    EXPECT_GT(cut_in_time, 0);
}

TEST(MappedFileGuard, GuardingNoRegionRunsTheFunction) {
    bool ran = false;
    EXPECT_EQ(guarded_each({}, [&] { ran = true; }), 0u);
    EXPECT_TRUE(ran);
}

TEST(MappedFileGuard, ReadsBeforeTheNewEndStillWorkAfterATruncation) {
    const bytes content = long_recording();
    const temp_file file(content);
    const mapped_file m = map(file);
    file.cut(8192);
    std::byte first{};
    std::byte last_kept{};
    EXPECT_FALSE(m.guard([&] {
        first = m.bytes()[0];
        last_kept = m.bytes()[8191];
    }));
    EXPECT_EQ(first, content[0]);
    EXPECT_EQ(last_kept, content[8191]);
}

TEST(MappedFileGuard, AGuardCanBeUsedAgainAfterAFault) {
    const temp_file file(long_recording());
    const mapped_file m = map(file);
    file.cut(4096);
    for (int i = 0; i < 100; ++i) {
        volatile std::byte sink{};
        EXPECT_EQ(m.guard([&] { sink = m.bytes()[m.size() - 1]; }), io_error) << "round " << i;
    }
}

TEST(MappedFileGuard, AFaultLeavesTheThreadsSignalMaskAsItWasBeforeTheGuard) {
    // The guard saves no mask when it is armed; the handler puts the interrupted code's back.
    const temp_file file(long_recording());
    const mapped_file m = map(file);
    file.cut(4096);
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigset_t before;
    ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &usr1, &before), 0);
    volatile std::byte sink{};
    EXPECT_EQ(m.guard([&] { sink = m.bytes()[m.size() - 1]; }), io_error);
    sigset_t after;
    ASSERT_EQ(pthread_sigmask(SIG_SETMASK, &before, &after), 0);
    EXPECT_FALSE(sigismember(&after, SIGBUS)) << "SIGBUS left blocked: the next fault would kill";
    EXPECT_TRUE(sigismember(&after, SIGUSR1)) << "the mask the code had is not kept";
}

TEST(MappedFileGuard, AFaultInsideAnOuterGuardsRegionEndsTheOuterGuard) {
    const temp_file cut_file(long_recording());
    const temp_file sound_file(long_recording());
    const mapped_file cut = map(cut_file);
    const mapped_file sound = map(sound_file);
    cut_file.cut(0);
    bool inner_returned = false;
    const std::error_code outer = cut.guard([&] {
        const std::error_code inner = sound.guard([&] {
            volatile std::byte sink = cut.bytes()[100000];
            (void)sink;
        });
        inner_returned = true;
        (void)inner;
    });
    EXPECT_EQ(outer, io_error);
    EXPECT_FALSE(inner_returned);

    // The inner guard's frame is gone: a later guard on this thread works as usual.
    report rep;
    EXPECT_FALSE(sound.guard([&] { rep = validate(sound.bytes()); }));
    EXPECT_TRUE(rep.valid());
}

TEST(MappedFileGuard, TwoThreadsGuardingAtOnceEachGetTheirOwnResult) {
    constexpr int rounds = 50;
    std::barrier both(2);
    std::atomic<int> faulting_errors{0};
    std::atomic<int> sound_successes{0};

    // One thread faults in every round while the other walks a sound file at the same moment.
    std::thread faulting([&] {
        for (int i = 0; i < rounds; ++i) {
            const temp_file file(long_recording());
            const mapped_file m = map(file);
            file.cut(4096);
            both.arrive_and_wait();
            recording rec;
            if (m.guard([&] { (void)rec.open(m.bytes()); }) == io_error) ++faulting_errors;
        }
    });
    std::thread sound([&] {
        const temp_file file(long_recording());
        const mapped_file m = map(file);
        for (int i = 0; i < rounds; ++i) {
            both.arrive_and_wait();
            recording rec;
            error e;
            if (!m.guard([&] { e = rec.open(m.bytes()); }) && !e) ++sound_successes;
        }
    });
    faulting.join();
    sound.join();
    EXPECT_EQ(faulting_errors.load(), rounds);
    EXPECT_EQ(sound_successes.load(), rounds);
}

TEST(MappedFileGuard, TwoThreadsFaultingAtOnceBothGetAnIoError) {
    constexpr int rounds = 50;
    std::barrier both(2);
    std::atomic<int> errors{0};
    auto work = [&] {
        for (int i = 0; i < rounds; ++i) {
            const temp_file file(long_recording());
            const mapped_file m = map(file);
            file.cut(0);
            both.arrive_and_wait();
            float sum = 0.0f;
            const std::error_code ec = m.guard([&] {
                reader r(m.bytes());
                for (item it = r.next(); it == item::curve; it = r.next()) sum += read_all_keys(r);
            });
            if (ec == io_error) ++errors;
        }
    };
    std::thread a(work);
    std::thread b(work);
    a.join();
    b.join();
    EXPECT_EQ(errors.load(), 2 * rounds);
}

TEST(MappedFileGuard, AnEmptyMappingRunsTheFunction) {
    const temp_file file(bytes{});
    const mapped_file m = map(file);
    bool ran = false;
    EXPECT_FALSE(m.guard([&] { ran = true; }));
    EXPECT_TRUE(ran);
}

TEST(MappedFileGuard, HeldBytesAreReadUnderTheGuardOnlyWhenTheyAreAMapping) {
    const temp_file file(long_recording());
    const mapped_file m = map(file);
    const held_bytes mapping = held_bytes::mapping(m.bytes());
    EXPECT_TRUE(mapping.mapped());
    EXPECT_EQ(mapping.span().data(), m.bytes().data());
    EXPECT_EQ(mapping.span().size(), m.bytes().size());
    file.cut(4096);
    bool finished = false;
    EXPECT_EQ(mapping.run([&] {
        volatile std::byte sink = mapping.span().back();
        static_cast<void>(sink);
        finished = true;
    }),
              io_error);
    EXPECT_FALSE(finished);

    // Bytes in memory cannot be cut off: f runs as it is.
    const bytes copy(8, std::byte{1});
    const held_bytes memory = held_bytes::in_memory(copy);
    EXPECT_FALSE(memory.mapped());
    EXPECT_EQ(memory.span().data(), copy.data());
    std::byte read{};
    EXPECT_FALSE(memory.run([&] { read = memory.span()[7]; }));
    EXPECT_EQ(read, std::byte{1});

    const held_bytes none;
    EXPECT_TRUE(none.span().empty());
    EXPECT_FALSE(none.mapped());
}

#if defined(__SANITIZE_ADDRESS__)
#define INPUTANIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define INPUTANIM_ASAN 1
#endif
#endif

// The death of an unguarded fault: SIGBUS, unless AddressSanitizer's own SIGBUS handler (which
// the guard chains to) reports the fault and exits with an error instead.
bool died_of_sigbus(int status) {
#ifdef INPUTANIM_ASAN
    return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
#else
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS;
#endif
}

// Death tests re-run the test in a fresh process, so the threads above do not matter.
using MappedFileGuardDeathTest = ::testing::Test;

TEST_F(MappedFileGuardDeathTest, AFaultOutsideAnyGuardStillKillsTheProcess) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const temp_file file(long_recording());
    const mapped_file m = map(file);
    file.remove_name();
    // The first guard installs the handler; unguarded faults must still kill afterwards.
    EXPECT_FALSE(m.guard([] {}));
    file.cut(0);
    EXPECT_EXIT(
        {
            volatile std::byte sink = m.bytes()[m.size() - 1];
            (void)sink;
        },
        died_of_sigbus, "");
}

TEST_F(MappedFileGuardDeathTest, AFaultOutsideTheGuardedRegionStillKillsTheProcess) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const temp_file guarded_file(long_recording());
    const temp_file cut_file(long_recording());
    const mapped_file guarded_map = map(guarded_file);
    const mapped_file cut = map(cut_file);
    guarded_file.remove_name();
    cut_file.remove_name();
    cut_file.cut(0);
    EXPECT_EXIT(
        {
            const std::error_code ec = guarded_map.guard([&] {
                volatile std::byte sink = cut.bytes()[cut.size() - 1];
                (void)sink;
            });
            (void)ec;
        },
        died_of_sigbus, "");
}

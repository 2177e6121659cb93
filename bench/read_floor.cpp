// The floor of reading many small files: what `inputanim index` of a folder of recordings is
// measured against. Lists the folders first, then opens, fstats, preads whole into a buffer each
// thread keeps, and closes every regular file on THREADS threads; nothing is parsed. A FILE
// operand (an archive) is one sequential read instead, in 1 MiB preads into one buffer: what
// indexing an archive is measured against. Prints the files and bytes read, and a checksum of the
// bytes (so that no read can be left out).
//
//     read_floor [--threads N] FOLDER...
//     read_floor FILE...
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

struct tally {
    std::uint64_t files = 0;
    std::uint64_t bytes = 0;
    std::uint64_t sum = 0;
};

// Reads every file of `paths` whose index is taken from `next` into one buffer.
tally read_files(const std::vector<std::string>& paths, std::atomic<std::size_t>& next) {
    tally t;
    std::vector<unsigned char> buffer;
    for (std::size_t i = next++; i < paths.size(); i = next++) {
        const int fd = ::open(paths[i].c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        struct stat st {};
        if (::fstat(fd, &st) == 0) {
            const auto size = static_cast<std::size_t>(st.st_size);
            if (buffer.size() < size) buffer.resize(size);
            std::size_t got = 0;
            while (got < size) {
                const ssize_t n =
                    ::pread(fd, buffer.data() + got, size - got, static_cast<off_t>(got));
                if (n <= 0) break;
                got += static_cast<std::size_t>(n);
            }
            ++t.files;
            t.bytes += got;
            // One byte per page: the read is not optimised away, and the sum costs nothing.
            for (std::size_t k = 0; k < got; k += 4096) t.sum += buffer[k];
        }
        ::close(fd);
    }
    return t;
}

// Reads `path` from start to end in 1 MiB pieces.
tally read_sequentially(const std::string& path) {
    tally t;
    std::vector<unsigned char> buffer(std::size_t{1} << 20);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return t;
    std::uint64_t at = 0;
    for (;;) {
        const ssize_t n = ::pread(fd, buffer.data(), buffer.size(), static_cast<off_t>(at));
        if (n <= 0) break;
        at += static_cast<std::uint64_t>(n);
        for (ssize_t k = 0; k < n; k += 4096) t.sum += buffer[static_cast<std::size_t>(k)];
    }
    ::close(fd);
    t.files = 1;
    t.bytes = at;
    return t;
}

}  // namespace

int main(int argc, char** argv) {
    unsigned threads = 1;
    std::vector<std::string> folders;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--threads" && i + 1 < argc) {
            threads = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
        } else {
            folders.emplace_back(a);
        }
    }
    if (folders.empty() || threads == 0) {
        std::fprintf(stderr, "usage: read_floor [--threads N] FOLDER...\n");
        return 2;
    }
    std::vector<std::string> paths;
    tally sequential;
    for (const std::string& folder : folders) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(folder, ec)) {
            const tally t = read_sequentially(folder);
            sequential.files += t.files;
            sequential.bytes += t.bytes;
            sequential.sum += t.sum;
            continue;
        }
        for (auto it = std::filesystem::recursive_directory_iterator(folder, ec);
             !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
            if (it->is_regular_file(ec)) paths.push_back(it->path().native());
        }
        if (ec) {
            std::fprintf(stderr, "read_floor: %s: %s\n", folder.c_str(), ec.message().c_str());
            return 3;
        }
    }
    std::atomic<std::size_t> next{0};
    std::vector<tally> tallies(threads);
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) {
        pool.emplace_back([&, t] { tallies[t] = read_files(paths, next); });
    }
    tallies[0] = read_files(paths, next);
    for (std::thread& t : pool) t.join();
    tally all = sequential;
    for (const tally& t : tallies) {
        all.files += t.files;
        all.bytes += t.bytes;
        all.sum += t.sum;
    }
    std::printf(
        "%llu files, %llu bytes, checksum %llu\n", static_cast<unsigned long long>(all.files),
        static_cast<unsigned long long>(all.bytes), static_cast<unsigned long long>(all.sum));
    return 0;
}

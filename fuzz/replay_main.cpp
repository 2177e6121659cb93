// The replay driver that stands in for libFuzzer in the normal build: runs a harness over every
// file of the folders (or files) it is given, so that ctest keeps every harness compiling and
// passing on its corpus and on every past finding. Harnesses with a custom mutator also get
// their mutator run on each input (deterministic seeds) and the results tested.
//
//     replay_<harness> [--mutations=N] <folder or file>...
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" __attribute__((weak)) std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data,
                                                                     std::size_t size,
                                                                     std::size_t max_size,
                                                                     unsigned int seed);

namespace {

std::minstd_rand byte_rng(1);

}  // namespace

// libFuzzer's own mutators are not linked here; custom mutators fall back to this byte-level
// one (change, insert or erase one byte), which keeps their fallback path running.
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size,
                                        std::size_t max_size) {
    const auto pos = [&](std::size_t n) { return n == 0 ? 0 : byte_rng() % n; };
    switch (byte_rng() % 3) {
        case 0:
            if (size > 0) data[pos(size)] ^= static_cast<std::uint8_t>(1 + byte_rng() % 255);
            return size;
        case 1:
            if (size < max_size) {
                const std::size_t at = pos(size + 1);
                std::memmove(data + at + 1, data + at, size - at);
                data[at] = static_cast<std::uint8_t>(byte_rng());
                return size + 1;
            }
            return size;
        default:
            if (size > 0) {
                const std::size_t at = pos(size);
                std::memmove(data + at, data + at + 1, size - at - 1);
                return size - 1;
            }
            return size;
    }
}

namespace {

namespace fs = std::filesystem;

bool read_file(const fs::path& path, std::vector<std::uint8_t>& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return true;
}

// Regular files, sorted so that runs are reproducible; dotfiles (.gitkeep) are not inputs.
std::vector<fs::path> inputs_in(const fs::path& folder) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(folder)) {
        if (!entry.is_regular_file()) continue;
        if (entry.path().filename().string().starts_with(".")) continue;
        files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

int main(int argc, char** argv) {
    if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
    int mutations = 0;
    std::vector<fs::path> files;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg.starts_with("--mutations=")) {
            mutations = std::stoi(std::string(arg.substr(12)));
            continue;
        }
        std::error_code ec;
        if (fs::is_directory(arg, ec)) {
            const std::vector<fs::path> found = inputs_in(arg);
            files.insert(files.end(), found.begin(), found.end());
        } else if (fs::is_regular_file(arg, ec)) {
            files.emplace_back(arg);
        } else {
            std::fprintf(stderr, "%s: no such file or folder\n", argv[i]);
            return 2;
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "no inputs: a harness needs a corpus\n");
        return 2;
    }

    std::size_t mutated = 0;
    std::vector<std::uint8_t> bytes;
    for (const fs::path& path : files) {
        if (!read_file(path, bytes)) {
            std::fprintf(stderr, "%s: cannot read\n", path.c_str());
            return 2;
        }
        // Printed first, so that a crash names its input.
        std::printf("%s\n", path.c_str());
        std::fflush(stdout);
        // A copy of exactly the input's size, so that ASan sees reads past its end.
        const std::vector<std::uint8_t> input(bytes);
        LLVMFuzzerTestOneInput(input.data(), input.size());
        if (LLVMFuzzerCustomMutator == nullptr) continue;
        // Mutations build on each other, as in a fuzzing run, restarting from the input now
        // and then.
        const std::size_t max_size = std::max<std::size_t>(2 * input.size(), 4096);
        std::vector<std::uint8_t> current;
        for (int m = 0; m < mutations; ++m) {
            if (m % 8 == 0) current = input;
            std::vector<std::uint8_t> buffer(current);
            buffer.resize(max_size);
            const std::size_t n = LLVMFuzzerCustomMutator(buffer.data(), current.size(), max_size,
                                                          static_cast<unsigned int>(m + 1));
            const std::vector<std::uint8_t> mutant(buffer.begin(),
                                                   buffer.begin() + static_cast<std::ptrdiff_t>(n));
            LLVMFuzzerTestOneInput(mutant.data(), mutant.size());
            current = mutant;
            ++mutated;
        }
    }
    std::printf("replayed %zu inputs and %zu mutations\n", files.size(), mutated);
    return 0;
}

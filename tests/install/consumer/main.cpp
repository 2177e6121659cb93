// Validates a generated recording, then writes a small recording to the file named on the command
// line, reads it back (mapped, when the package has mapped_file) and validates it at level full:
// the headers, the library, the generator and the library's private Boost dependencies must all
// come through the installed package. Exit status 0 means all of that worked.
#include <inputanim/generate.hpp>
#include <inputanim/inputanim.hpp>

#include <cstddef>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

namespace {

int check(std::span<const std::byte> file, const std::vector<std::byte>& written) {
    const inputanim::report r = inputanim::validate(file);
    if (!r.valid()) {
        std::fprintf(stderr, "invalid: %s\n", r.error.message().c_str());
        return 1;
    }
    if (file.size() != written.size() || r.summary.keyframes != 2 || r.summary.markers != 1u) {
        std::fprintf(stderr, "unexpected summary: %zu bytes, %llu keyframes\n", file.size(),
                     static_cast<unsigned long long>(r.summary.keyframes));
        return 1;
    }
    std::printf("consumer: %zu bytes, %u curves, valid\n", file.size(), r.summary.curves);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: consumer OUTPUT\n");
        return 2;
    }
    inputanim::generate_options options;
    options.seconds = 1;
    options.markers = 1;
    inputanim::model generated;
    if (const std::error_code ec = inputanim::generate(options, generated)) {
        std::fprintf(stderr, "cannot generate: %s\n", ec.message().c_str());
        return 1;
    }
    if (!inputanim::validate(inputanim::write(generated)).valid()) {
        std::fprintf(stderr, "the generated recording is invalid\n");
        return 1;
    }
    inputanim::model m;
    m[inputanim::camera_curve(inputanim::pose_channel::position_x)].keys = {{0.0f, 1.0f},
                                                                            {0.5f, 2.0f}};
    m.markers = std::vector<inputanim::marker>{{0.25f, "consumer"}};
    const std::vector<std::byte> bytes = inputanim::write(m);
    {
        std::ofstream out(argv[1], std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()),
                  static_cast<std::streamsize>(bytes.size()));
        if (!out) {
            std::fprintf(stderr, "cannot write %s\n", argv[1]);
            return 1;
        }
    }
#ifdef CONSUMER_MAPS_FILES
    std::error_code ec;
    const inputanim::mapped_file file = inputanim::mapped_file::open(argv[1], ec);
    if (ec) {
        std::fprintf(stderr, "cannot map %s: %s\n", argv[1], ec.message().c_str());
        return 1;
    }
    return check(file.bytes(), bytes);
#else
    std::ifstream in(argv[1], std::ios::binary);
    std::vector<std::byte> file;
    for (auto it = std::istreambuf_iterator<char>(in); it != std::istreambuf_iterator<char>();
         ++it) {
        file.push_back(static_cast<std::byte>(*it));
    }
    return check(file, bytes);
#endif
}

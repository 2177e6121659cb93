#include <cstdio>
#include <fstream>
#include <inputanim/inputanim.hpp>
using namespace inputanim;

int main(int argc, char** argv) {
    const char* path = argc > 1 ? argv[1] : "sample.bin";
    model m;  // v1.1, compact keyframes, camera + hands + gaze, an empty marker list
    for (int i = 0; i <= 60; ++i)
        m[camera_curve(pose_channel::position_x)].keys.push_back({i / 60.0f, 0.01f * i});
    m.markers->push_back({0.5f, "halfway"});
    const std::vector<std::byte> out = write(m);
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(out.data()), out.size());

    std::error_code ec;
    const mapped_file file = mapped_file::open(path, ec);  // errors are values, never exceptions
    if (ec) return std::fprintf(stderr, "%s: %s\n", path, ec.message().c_str()), 3;
    const report r = validate(file.bytes(), {.level = level::full});
    if (!r.valid()) return std::fprintf(stderr, "%s\n", r.error.message().c_str()), 1;
    for (reader rd(file.bytes()); rd.next() == item::curve;)  // zero-copy, allocation-free walk
        if (!rd.curve().keys.empty())
            std::printf("%s: %zu keys\n", std::string(rd.curve().path()).c_str(),
                        rd.curve().size());
    std::printf("%u curves, %llu keyframes, duration %g s\n", r.summary.curves,
                (unsigned long long)r.summary.keyframes, *r.summary.duration);
}

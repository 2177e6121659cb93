// The straightforward reader as a command, for bench/run to measure its memory and its rate over
// many files: reads each FILE (and every file under each folder) and prints its verdict.
//
//     straightforward_validate [--level structure|full] PATH...
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "straightforward_reader.hpp"

int main(int argc, char** argv) {
    straightforward::level lvl = straightforward::level::full;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--level" && i + 1 < argc) {
            const std::string name = argv[++i];
            lvl = name == "structure" ? straightforward::level::structure
                                      : straightforward::level::full;
        } else if (std::filesystem::is_directory(arg)) {
            for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
                if (entry.is_regular_file()) files.push_back(entry.path().string());
            }
        } else {
            files.push_back(arg);
        }
    }
    if (files.empty()) {
        std::cerr << "usage: straightforward_validate [--level structure|full] PATH...\n";
        return 2;
    }
    std::size_t invalid = 0;
    for (const std::string& path : files) {
        const straightforward::result r = straightforward::read(path, lvl);
        if (r.error.empty()) {
            std::cout << path << ": valid, " << r.rec.curves.size() << " curves, " << r.keyframes
                      << " keyframes, " << r.duration - r.start << " s\n";
        } else {
            ++invalid;
            std::cout << path << ": invalid: " << r.error << " at byte " << r.offset << '\n';
        }
    }
    return invalid == 0 ? 0 : 1;
}

// Starting threads when the environment may refuse them (a process or memory limit): the index's
// readers and the server's threads go on with those that started.
#pragma once

#include <system_error>
#include <thread>
#include <vector>

namespace inputanim::tools {

// Starts up to `n` threads running `body`, into `threads`; a thread the system refuses
// (std::system_error) ends the starting. Returns the reason of the refusal, or no error.
template <class Body>
std::error_code start_threads(unsigned n, std::vector<std::thread>& threads, const Body& body) {
    for (unsigned i = 0; i < n; ++i) {
        try {
            threads.emplace_back(body);
        } catch (const std::system_error& e) {
            return e.code();
        }
    }
    return {};
}

}  // namespace inputanim::tools

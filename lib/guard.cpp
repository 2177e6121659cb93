// SIGBUS on a mapped file whose pages vanished (another process truncated it) becomes an I/O
// error. One process-wide handler, installed on first use; each thread keeps a chain of armed
// guards in a thread_local pointer, so the handler (which runs on the faulting thread) knows
// whether the fault is one it may recover from. Everything the handler touches is
// async-signal-safe: a thread_local pointer set before the fault, plain reads, pthread_sigmask,
// siglongjmp.
#include <pthread.h>
#include <signal.h>
#include <ucontext.h>

#include <atomic>
#include <cerrno>
#include <csetjmp>
#include <cstdint>

#include "inputanim/guard.hpp"

namespace inputanim::detail {

namespace {

struct guard_frame {
    sigjmp_buf jump;
    std::uintptr_t begin;
    std::size_t size;
    guard_frame* outer;
    // Where the fault hit, from the start of the region.
    std::uint64_t fault_offset;
};

// Trivially initialized, so the handler reads it without a TLS init wrapper; run_guarded
// writes it before arming, so the thread's TLS block exists before any fault.
thread_local guard_frame* innermost = nullptr;

struct sigaction previous_action {};

bool covers(const guard_frame& f, std::uintptr_t address) noexcept {
    return address >= f.begin && address - f.begin < f.size;
}

void on_sigbus(int signal, siginfo_t* info, void* context) {
    // si_code > 0: raised by the kernel for this thread's access, so si_addr is meaningful.
    if (info != nullptr && info->si_code > 0) {
        const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
        for (guard_frame* f = innermost; f != nullptr; f = f->outer) {
            if (covers(*f, address)) {
                f->fault_offset = address - f->begin;
                // The mask of the interrupted code (SIGBUS unblocked): arming saved none, as
                // saving it is a system call per guard, and leaving by siglongjmp would leave
                // SIGBUS blocked and the next fault fatal.
                const auto* interrupted = static_cast<const ucontext_t*>(context);
                if (interrupted != nullptr) {
                    pthread_sigmask(SIG_SETMASK, &interrupted->uc_sigmask, nullptr);
                }
                siglongjmp(f->jump, 1);
            }
        }
    }
    // Not ours: whoever handled SIGBUS before us decides.
    if ((previous_action.sa_flags & SA_SIGINFO) != 0) {
        previous_action.sa_sigaction(signal, info, context);
        return;
    }
    if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
        previous_action.sa_handler(signal);
        return;
    }
    // The default action (an ignored SIGBUS from a fault would repeat forever). A fault repeats
    // when the instruction runs again after we return; a SIGBUS sent by kill() has to be raised
    // again (it stays blocked, and so pending, until this handler returns).
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(SIGBUS, &fallback, nullptr);
    if (info == nullptr || info->si_code <= 0) raise(SIGBUS);
}

std::error_code install_handler() {
    static const int result = [] {
        struct sigaction action {};
        action.sa_sigaction = on_sigbus;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        return sigaction(SIGBUS, &action, &previous_action) == 0 ? 0 : errno;
    }();
    if (result != 0) return {result, std::generic_category()};
    return {};
}

}  // namespace

std::error_code run_guarded(std::span<const std::byte> region, void (*fn)(void*), void* context,
                            std::uint64_t* fault_offset) {
    if (const std::error_code ec = install_handler()) return ec;
    guard_frame frame;
    frame.begin = reinterpret_cast<std::uintptr_t>(region.data());
    frame.size = region.size();
    frame.outer = innermost;
    frame.fault_offset = 0;
    // No mask saved: the handler restores the interrupted code's before it jumps.
    if (sigsetjmp(frame.jump, 0) != 0) {
        innermost = frame.outer;
        if (fault_offset != nullptr) *fault_offset = frame.fault_offset;
        return std::make_error_code(std::errc::io_error);
    }
    innermost = &frame;
    // The compiler must not move the arming past the reads that fn makes.
    std::atomic_signal_fence(std::memory_order_seq_cst);
    try {
        fn(context);
    } catch (...) {
        innermost = frame.outer;
        throw;
    }
    std::atomic_signal_fence(std::memory_order_seq_cst);
    innermost = frame.outer;
    return {};
}

}  // namespace inputanim::detail

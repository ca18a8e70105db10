// kernelscope-cli: the engine, headless. Ctrl-C cancels the run within milliseconds (a CPU repetition or reference
// checks the stop request in its loops; GPU work stops after the repetition under way) and still writes what was
// measured; a second Ctrl-C exits at once.
#include "cli/cli.h"
#include "cli/reader_worker.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>
#include <unistd.h>

namespace {
std::atomic<bool> g_interrupted {false};

extern "C" void onInterrupt(int)
{
    // The first signal asks the run to stop and write what it measured; a second one exits at once (outputs being
    // written stay in their temporary files; the named files keep their old content).
    if (g_interrupted.exchange(true))
        _exit(ks::cli::kExitCancelled);
}
} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    // Dataset files are read by this executable again, as `kernelscope-cli read-worker` (reader_worker.h).
    ks::cli::setReaderWorkerArgv(ks::cli::selfReaderWorkerArgv());
    std::stop_source stop;
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    // A signal handler may only set a flag; this thread turns it into a stop request.
    std::jthread watcher([&stop](std::stop_token own) {
        while (!own.stop_requested()) {
            if (g_interrupted.load()) {
                stop.request_stop();
                return;
            }
            // Polled often enough that the poll adds little to the time from Ctrl-C to exit.
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    });
    const int code = ks::cli::runCli(args, std::cout, std::cerr, stop.get_token());
    return g_interrupted.load() && code == ks::cli::kExitOk ? ks::cli::kExitCancelled : code;
}

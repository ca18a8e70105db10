// kernelscope-cli: the engine, headless. Ctrl-C cancels between repetitions and still writes what was measured.
#include "cli/cli.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>

namespace {
std::atomic<bool> g_interrupted {false};

extern "C" void onInterrupt(int)
{
    g_interrupted.store(true);
}
} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
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
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });
    const int code = ks::cli::runCli(args, std::cout, std::cerr, stop.get_token());
    return g_interrupted.load() && code == ks::cli::kExitOk ? ks::cli::kExitCancelled : code;
}

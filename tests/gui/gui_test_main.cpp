// GUI tests need a QApplication before any widget exists; they run offscreen (QT_QPA_PLATFORM=offscreen is set
// for every test by ks_add_test, and defaulted here for direct runs).
#include "cli/reader_worker.h"
#include "cli/worker.h"

#include <QApplication>
#include <QStandardPaths>
#include <gtest/gtest.h>

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // Settings and autosaves go to throw-away test locations, never the user's.
    QStandardPaths::setTestModeEnabled(true);
    // A user kernel's worker is kernelscope-cli's (this test binary is not the app that serves as its own worker).
    ks::cli::setWorkerArgv({KS_CLI_BINARY, "worker"});
    // Dataset files are read by kernelscope-cli's reader worker likewise, as the app reads them with its own.
    ks::cli::setReaderWorkerArgv({KS_CLI_BINARY, "read-worker"});
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("KernelScopeTests"));
    QApplication::setApplicationName(QStringLiteral("kernelscope-tests"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

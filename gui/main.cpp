// kernelscope: the desktop profiler. Starts on the built-in generator of the first workload; --demo also runs a
// short sweep of every variant that can run here.
#include "cli/cli.h"
#include "cli/reader_worker.h"
#include "compute/core/registry.h"
#include "compute/core/version.h"
#include "data/host_memory.h"
#include "gui/charts/chart_view.h"
#include "gui/loaded_results.h"
#include "gui/main_window.h"
#include "gui/panels/run_settings_panel.h"
#include "gui/results_model.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTabWidget>
#include <QTimer>
#include <iostream>
#include <stdexcept>
#include <string_view>

int main(int argc, char** argv)
{
    // A user kernel runs isolated in a child process: this executable again, as `kernelscope worker` (cli/worker.h),
    // which needs no display and answers on its stdout.
    if (argc == 2 && std::string_view(argv[1]) == "worker")
        return ks::cli::runCli({"worker"}, std::cout, std::cerr);
    // Dataset files are read likewise, by `kernelscope read-worker` (cli/reader_worker.h): a reader that crashes on a
    // hostile file ends that process, not the app.
    if (argc == 2 && std::string_view(argv[1]) == "read-worker")
        return ks::cli::readWorkerMain(std::cin, std::cout, std::cerr);
    ks::cli::setReaderWorkerArgv(ks::cli::selfReaderWorkerArgv());
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("KernelScope"));
    QApplication::setApplicationName(QStringLiteral("kernelscope"));
    QApplication::setApplicationVersion(QString::fromLatin1(ks::version()));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Run CUDA kernel variants side by side and watch them live"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption demo(QStringLiteral("demo"),
        QStringLiteral("Run a short sweep of every variant on the built-in generator at start"));
    const QCommandLineOption theme(
        QStringLiteral("theme"), QStringLiteral("light, dark or system"), QStringLiteral("theme"));
    const QCommandLineOption workload(
        QStringLiteral("workload"), QStringLiteral("Workload to open"), QStringLiteral("id"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
        QStringLiteral("After the demo sweep (or, with a results file and no --demo, as it opened), save the window as "
                       "PNG files named FILE-<tab>.png and quit"),
        QStringLiteral("FILE"));
    const QCommandLineOption kernel(QStringLiteral("kernel"),
        QStringLiteral("A user's CUDA kernel file for the workload's ABI, opened in the Kernels pane and run as "
                       "variant user:<stem> (repeat for several)"),
        QStringLiteral("file.cu"));
    const QCommandLineOption param(QStringLiteral("param"),
        QStringLiteral("A run or reader parameter, as kernelscope-cli takes it (e.g. zeros=replace; repeatable)"),
        QStringLiteral("key=value"));
    const QCommandLineOption memoryLimit(QStringLiteral("memory-limit"),
        QStringLiteral("A memory budget of the app's own (4G, 512M): larger inputs are refused before they are read "
                       "(also under Run settings)"),
        QStringLiteral("SIZE"));
    parser.addOptions({demo, theme, workload, screenshot, kernel, param, memoryLimit});
    parser.addPositionalArgument(QStringLiteral("file"),
        QStringLiteral("A dataset file to open, or a results file kernelscope-cli wrote (--json, --csv)"),
        QStringLiteral("[file]"));
    parser.process(app);
    if (parser.isSet(memoryLimit)) {
        try {
            ks::data::setMemoryLimit(ks::data::parseByteSize(parser.value(memoryLimit).toStdString()));
        } catch (const std::invalid_argument& e) {
            std::cerr << "kernelscope: --memory-limit " << e.what() << '\n';
            return 2;
        }
    }

    ks::gui::MainWindow window;
    if (parser.isSet(theme))
        window.setTheme(ks::gui::themeFromName(parser.value(theme)));
    if (parser.isSet(workload))
        window.setWorkload(parser.value(workload));
    // Parameters first: reader options (lrv's zeros, sdh's frame) decide how the file loads.
    if (parser.isSet(param)) {
        auto settings = window.runSettingsPanel()->settings();
        for (const QString& assignment : parser.values(param)) {
            const qsizetype eq = assignment.indexOf(QLatin1Char('='));
            if (eq <= 0) {
                std::cerr << "kernelscope: --param " << assignment.toStdString() << ": expected key=value\n";
                return 2;
            }
            settings.params[assignment.left(eq).toStdString()] = assignment.mid(eq + 1).toStdString();
        }
        window.runSettingsPanel()->setSettings(settings);
    }
    window.show();
    for (const QString& file : parser.values(kernel))
        window.addUserKernel(file); // a refusal says why in the status bar
    const QString file = parser.positionalArguments().isEmpty() ? QString() : parser.positionalArguments().front();
    const bool dataset = !file.isEmpty() && !ks::gui::isResultsFile(file);
    if (!file.isEmpty())
        // Sniffed as a drop is: a results file opens as results, anything else as the dataset.
        window.openDroppedFile(file);
    // A results file with --screenshot (and no --demo) is pictured as it opened: nothing is run.
    const bool resultsOnly = !file.isEmpty() && !dataset && !parser.isSet(demo);

    if (parser.isSet(demo) || (parser.isSet(screenshot) && !resultsOnly)) {
        auto settings = window.runSettingsPanel()->settings();
        const QString id = parser.isSet(workload) ? parser.value(workload) : QStringLiteral("linreg");
        // A dataset file is measured at its own size; the generator sweeps the workload's demo sizes.
        if (const auto* w = ks::defaultRegistry().find(id.toStdString()); w && !dataset)
            settings.sizes = QString::fromStdString(w->demoSizes());
        settings.options.timeLimitS = 0.5;
        settings.options.maxRepetitions = 60;
        window.runSettingsPanel()->setSettings(settings);
        if (dataset) {
            // The run starts when the file has loaded; a file that fails is shown (and saved) as it failed.
            QObject::connect(
                &window, &ks::gui::MainWindow::datasetLoadFinished, &window,
                [&window](bool ok) {
                    if (ok)
                        window.startRun();
                    else
                        Q_EMIT window.runFinished(false);
                },
                Qt::SingleShotConnection);
        } else {
            QTimer::singleShot(200, &window, [&window] { window.startRun(); });
        }
    }
    if (parser.isSet(screenshot)) {
        const QString stem = parser.value(screenshot);
        // Let the last queued replots land, then grab each chart tab in turn.
        const auto grabTabs = [&window, stem] {
            QTimer::singleShot(600, &window, [&window, stem] {
                auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("charts"));
                for (int i = 0; tabs && i < tabs->count(); ++i) {
                    tabs->setCurrentIndex(i);
                    if (auto* chart = qobject_cast<ks::gui::ChartView*>(tabs->currentWidget()))
                        chart->rebuildNow();
                    QApplication::processEvents();
                    window.grab().save(QStringLiteral("%1-%2.png").arg(stem).arg(i));
                }
                QApplication::quit();
            });
        };
        if (resultsOnly)
            grabTabs();
        else
            QObject::connect(&window, &ks::gui::MainWindow::runFinished, &window, grabTabs);
    }
    return QApplication::exec();
}

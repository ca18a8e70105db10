#include "gui/user_kernels.h"

#include "cli/cli.h"
#include "compute/core/errors.h"
#include "compute/core/user_variant.h"

#include <QFileInfo>
#include <deque>
#include <sstream>

namespace ks::gui {

QString userKernelId(const QString& path)
{
    return QString::fromStdString(userVariantId(path.toStdString()));
}

bool isUserKernelId(const QString& id)
{
    return id.startsWith(QStringLiteral("user:"));
}

QString userKernelUnavailableReason(const QString& workload, const QString& path)
{
    if (!QFileInfo(path).isFile())
        return QStringLiteral("%1: no such file").arg(path);
    return QString::fromStdString(unavailableReason(makeUserVariant(workload.toStdString(), path.toStdString())));
}

std::vector<std::string> paramArguments(const std::map<std::string, std::string>& params)
{
    std::vector<std::string> args;
    for (const auto& [key, value] : params)
        args.push_back(key + "=" + value);
    return args;
}

CompileCheck checkUserKernel(const QString& workload, const QString& path, const QStringList& nvrtcOptions)
{
    std::vector<std::string> args {"compile", "--workload", workload.toStdString(), "--kernel", path.toStdString()};
    for (const QString& option : nvrtcOptions)
        args.push_back("--nvrtc-opt=" + option.toStdString());
    std::ostringstream out;
    std::ostringstream err;
    const int code = cli::runCli(args, out, err);
    CompileCheck check;
    check.ok = code == cli::kExitOk;
    check.summary = QString::fromStdString(out.str()).trimmed();
    check.messages = QString::fromStdString(err.str()).trimmed();
    return check;
}

std::vector<Summary> runSweepWithUserKernels(
    const SweepPlan& plan, const UserKernelRun& run, const Runner& runner, RunObserver& observer, std::stop_token stop)
{
    const std::string workload = plan.request.workload->id();
    std::deque<Variant> users; // a deque: the entries point into it
    std::vector<cli::RunEntry> entries;
    for (const std::string& id : run.order) {
        if (const auto file = run.files.find(id); file != run.files.end()) {
            std::vector<std::string> options = run.origin.nvrtcOptions;
            std::vector<std::string> own;
            if (const auto o = run.nvrtcOptions.find(id); o != run.nvrtcOptions.end())
                own = o->second;
            options.insert(options.end(), own.begin(), own.end());
            users.push_back(makeUserVariant(workload, file->second, options));
            entries.push_back({&users.back(), file->second, own});
            continue;
        }
        const auto v = std::find_if(
            plan.variants.begin(), plan.variants.end(), [&](const Variant* variant) { return variant->id == id; });
        if (v == plan.variants.end())
            throw ParameterError("variant '" + id + "' is not in the plan");
        entries.push_back({*v, {}, {}});
    }
    return cli::runSweepWithUserKernels(plan, entries, run.origin, runner, observer, stop);
}

} // namespace ks::gui

#pragma once

// How the spmv tests run a variant outside the runner: prepared on a dataset and run twice, its timer around each.

#include "compute/core/timing.h"
#include "compute/core/variant.h"
#include "compute/core/workload.h"

#include <memory>
#include <string>

namespace ks::test {

/// Variant `id` of `workload` prepared on `d` with run parameters `params`, after two runs.
inline std::unique_ptr<PreparedRun> prepareAndRun(
    const Workload& workload, const std::string& id, const data::Dataset& d, const ParamSet& params)
{
    RunContext context {0, &steadyClock()};
    auto run = workload.findVariant(id)->prepare(d, params, context);
    for (int r = 0; r < 2; ++r) {
        run->timer().start();
        run->run();
        run->timer().stop();
        run->timer().elapsedMs();
    }
    return run;
}

} // namespace ks::test

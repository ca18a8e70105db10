#pragma once

// makeRun: a variant's prepared run made from the dataset, in the value type the `precision` parameter names when
// the run is a template over it. Every workload's variant factories use it.

#include "compute/core/precision.h"
#include "compute/core/variant.h"

#include <memory>
#include <utility>

namespace ks {

/// Run(model, args...), where the model is the dataset's `Run::Model` (its base class names the type it prepares
/// from: data::SparseSystem, data::PointCloud, …).
template <class Run, class... Args> std::unique_ptr<PreparedRun> makeRun(const data::Dataset& dataset, Args&&... args)
{
    return std::make_unique<Run>(dataset.as<typename Run::Model>(), std::forward<Args>(args)...);
}

/// Run<float> or Run<double>, as the `precision` parameter asks, made as above.
template <template <class> class Run, class... Args>
std::unique_ptr<PreparedRun> makeRun(const data::Dataset& dataset, const ParamSet& params, Args&&... args)
{
    if (precisionOf(params) == Precision::F32)
        return makeRun<Run<float>>(dataset, std::forward<Args>(args)...);
    return makeRun<Run<double>>(dataset, std::forward<Args>(args)...);
}

} // namespace ks

// The oracle: the network's plain loops in double, from the float initial weights and the float pixels widened.
#include "compute/workloads/cnn/cnn.h"

namespace ks::cnn {

std::unique_ptr<PreparedRun> prepareReference(const data::Dataset& d, const ParamSet& p, const RunContext& context)
{
    return std::make_unique<CpuTrainingRun<double>>(d, p, context);
}

} // namespace ks::cnn

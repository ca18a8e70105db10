// CPU variant: the same loops in float32 over every core (each output owned by one thread: deterministic).
#include "compute/workloads/cnn/cnn.h"

namespace ks::cnn {

std::unique_ptr<PreparedRun> prepareCpuOpenMp(const data::Dataset& d, const ParamSet& p, const RunContext& context)
{
    return std::make_unique<CpuTrainingRun<float>>(d, p, context);
}

} // namespace ks::cnn

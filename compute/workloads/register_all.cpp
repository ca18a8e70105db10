// Every workload the engine offers, registered explicitly.
#include "compute/core/registry.h"
#include "compute/workloads/linreg/linreg.h"

namespace ks {

void registerAllWorkloads(Registry& registry)
{
    linreg::registerLinreg(registry);
}

} // namespace ks

// Every workload the engine offers, registered explicitly.
#include "compute/core/registry.h"
#include "compute/workloads/cnn/cnn.h"
#include "compute/workloads/linreg/linreg.h"
#include "compute/workloads/lrv/lrv.h"
#include "compute/workloads/sdh/sdh.h"
#include "compute/workloads/spmv/spmv.h"

namespace ks {

void registerAllWorkloads(Registry& registry)
{
    linreg::registerLinreg(registry);
    lrv::registerLrv(registry);
    spmv::registerSpmv(registry);
    sdh::registerSdh(registry);
    cnn::registerCnn(registry);
}

} // namespace ks

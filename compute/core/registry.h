#pragma once

#include "compute/core/workload.h"

#include <memory>
#include <string>
#include <vector>

namespace ks {

/// Every workload the engine offers. Filled explicitly by registerAllWorkloads (no static self-registration: a
/// static library's linker would drop it).
class Registry {
public:
    void add(std::unique_ptr<Workload> workload);
    const Workload* find(const std::string& id) const;
    const std::vector<std::unique_ptr<Workload>>& workloads() const { return m_workloads; }

private:
    std::vector<std::unique_ptr<Workload>> m_workloads;
};

/// Calls each workload's registerXxx(Registry&).
void registerAllWorkloads(Registry& registry);

/// A registry with every workload, built once per process.
const Registry& defaultRegistry();

} // namespace ks

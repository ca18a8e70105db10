#include "compute/core/variant.h"

#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/core/summary.h"
#include "compute/core/workload.h"
#include "compute/device/device_info.h"
#include "compute/device/vendor_libraries.h"

#include <algorithm>

namespace ks {

const char* backendName(Backend backend)
{
    switch (backend) {
    case Backend::Cpu:
        return "cpu";
    case Backend::Cuda:
        return "cuda";
    case Backend::Library:
        return "library";
    }
    return "?";
}

bool Expectation::allowsIncorrectOn(const std::string& dataClass) const
{
    return kind == Kind::MayLoseDigits
        && (dataClasses.empty() || std::find(dataClasses.begin(), dataClasses.end(), dataClass) != dataClasses.end());
}

Variant Variant::exact(std::string detail) const
{
    Variant v = *this;
    v.expectation = {Expectation::Kind::Exact, std::move(detail), {}};
    return v;
}

Variant Variant::mayLoseDigitsOn(std::vector<std::string> dataClasses) const
{
    Variant v = *this;
    v.expectation = {Expectation::Kind::MayLoseDigits, {}, std::move(dataClasses)};
    return v;
}

const char* roofName(Roof roof)
{
    switch (roof) {
    case Roof::ReadBandwidth:
        return "read_bandwidth";
    case Roof::CopyBandwidth:
        return "copy_bandwidth";
    case Roof::Fp32:
        return "fp32_fma";
    case Roof::Fp64:
        return "fp64_fma";
    }
    return "?";
}

const char* outcomeName(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Passed:
        return "passed";
    case Outcome::Incorrect:
        return "incorrect";
    case Outcome::Failed:
        return "failed";
    case Outcome::Skipped:
        return "skipped";
    case Outcome::Cancelled:
        return "cancelled";
    }
    return "?";
}

Outcome outcomeFromName(const std::string& name)
{
    for (auto o : {Outcome::Passed, Outcome::Incorrect, Outcome::Failed, Outcome::Skipped, Outcome::Cancelled})
        if (name == outcomeName(o))
            return o;
    throw ParameterError("unknown outcome '" + name + "'");
}

Variant cpuVariant(std::string id, std::string name, std::string technique, PrepareFn prepare)
{
    return Variant {std::move(id), std::move(name), std::move(technique), Backend::Cpu, std::move(prepare), {}, {}, {}};
}

Variant gpuVariant(std::string id, std::string name, std::string technique, Backend backend, PrepareFn prepare)
{
    const bool built = static_cast<bool>(prepare);
    return Variant {std::move(id), std::move(name), std::move(technique), backend, std::move(prepare),
        built ? std::string() : std::string("built without CUDA (no nvcc at configure time)"), {}, {}};
}

Variant multiDeviceVariant(std::string id, std::string name, std::string technique, PrepareFn prepare)
{
    Variant v = gpuVariant(std::move(id), std::move(name), std::move(technique), Backend::Cuda, std::move(prepare));
    v.multiDevice = true;
#if KS_HAVE_CUDA
    v.runtimeCheck = [] { return device::ncclUnavailableReason(); };
#endif
    return v;
}

std::string unavailableReason(const Variant& variant)
{
    if (!variant.prepare)
        return variant.notBuiltReason.empty() ? "not built" : variant.notBuiltReason;
    if (variant.backend != Backend::Cpu)
        if (std::string reason = device::cudaUnavailableReason(); !reason.empty())
            return reason;
    return variant.runtimeCheck ? variant.runtimeCheck() : std::string();
}

const Variant* Workload::findVariant(const std::string& id) const
{
    auto it = std::find_if(m_variants.begin(), m_variants.end(), [&](const Variant& v) { return v.id == id; });
    return it == m_variants.end() ? nullptr : &*it;
}

const Variant& Workload::referenceVariant() const
{
    const Variant* v = findVariant("reference");
    if (!v)
        throw ComputeError("workload '" + id() + "' registers no variant with id 'reference'");
    return *v;
}

std::vector<TestClass> TestPlan::parameterCombinations(const std::vector<Axis>& parameters) const
{
    std::vector<TestClass> combos {{}};
    for (const auto& axis : parameters) {
        if (axis.kind != AxisKind::Enum || axis.readerOption)
            continue;
        std::vector<TestClass> next;
        for (const auto& combo : combos)
            for (const auto& choice : axis.choices) {
                TestClass c = combo;
                c.name += (c.name.empty() ? "" : "_") + choice;
                c.values[axis.name] = choice;
                next.push_back(std::move(c));
            }
        combos = std::move(next);
    }
    const std::vector<TestClass> classes = parameterClasses.empty() ? std::vector<TestClass> {{}} : parameterClasses;
    std::vector<TestClass> out;
    for (const auto& combo : combos)
        for (const auto& extra : classes) {
            TestClass c = combo;
            if (!extra.name.empty())
                c.name += (c.name.empty() ? "" : "_") + extra.name;
            c.values.insert(extra.values.begin(), extra.values.end());
            out.push_back(std::move(c));
        }
    return out;
}

void Registry::add(std::unique_ptr<Workload> workload)
{
    if (find(workload->id()))
        throw ComputeError("workload '" + workload->id() + "' registered twice");
    m_workloads.push_back(std::move(workload));
}

const Workload* Registry::find(const std::string& id) const
{
    for (const auto& w : m_workloads)
        if (w->id() == id)
            return w.get();
    return nullptr;
}

const Registry& defaultRegistry()
{
    static const Registry registry = [] {
        Registry r;
        registerAllWorkloads(r);
        return r;
    }();
    return registry;
}

} // namespace ks

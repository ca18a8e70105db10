// Workload::checkRun through planSweep: the requests the GUI and the CLI both plan are refused before any variant
// runs when they cannot give a meaningful answer (linreg on constant x) or could not fit (sdh buckets).
#include "compute/core/errors.h"
#include "compute/core/registry.h"
#include "compute/core/sweep.h"
#include "compute/workloads/sdh/sdh.h"
#include "data/host_memory.h"
#include "data/series2d.h"

#include <gtest/gtest.h>

namespace ks {
namespace {

std::string planError(SweepRequest request)
{
    try {
        planSweep(std::move(request));
    } catch (const ParameterError& e) {
        return e.what();
    }
    return {};
}

SweepRequest requestFor(const std::string& workload)
{
    SweepRequest request;
    request.workload = defaultRegistry().find(workload);
    request.variantIds = {"reference"};
    return request;
}

data::Dataset series(std::vector<double> x)
{
    data::Series2D s;
    s.y.assign(x.size(), 1.0);
    s.x = std::move(x);
    return data::makeSeriesDataset(std::move(s), "hand.csv", "test");
}

TEST(RunChecks, LinregRefusesConstantXFromAFileASubsetOrTheGenerator)
{
    auto request = requestFor("linreg");
    request.dataset = series({4, 4, 4});
    EXPECT_EQ(planError(request), "x is constant: the slope is undefined (hand.csv: x = 4 in every point)");
    request.dataset = series({1, 1, 2});
    EXPECT_EQ(planError(request), "");
    request.sizes = {2, 3};
    EXPECT_EQ(
        planError(request), "x is constant: the slope is undefined (hand.csv: x = 1 in every point of the first 2)");

    request = requestFor("linreg");
    request.generator = {{"n", "1"}};
    EXPECT_EQ(planError(request), "x is constant: the slope is undefined (n=1: one point)");
    request.generator = {{"n", "10"}, {"x_span", "0"}};
    EXPECT_EQ(planError(request), "x is constant: the slope is undefined (x_span=0 leaves every x at x_offset=0)");
    request.generator = {{"n", "10"}};
    EXPECT_EQ(planError(request), "");
}

TEST(RunChecks, SdhRefusesBucketsBeyondTheCapOrMemory)
{
    auto request = requestFor("sdh");
    request.generator = {{"points", "10"}, {"box", "1"}};
    request.params = {{"bucket_width", "1e-12"}};
    const std::string error = planError(request);
    EXPECT_NE(error.find("bucket_width=1e-12 makes 1.732e+12 buckets"), std::string::npos) << error;
    // The available memory moves between the check and this line on a busy machine: the figure is not compared.
    EXPECT_NE(error.find("per histogram, over the "), std::string::npos) << error;
    EXPECT_NE(error.find(" available"), std::string::npos) << error;
    request.params = {{"bucket_width", "0.001"}};
    EXPECT_EQ(planError(request), "");
    // Clusters reach past the box: 6 standard deviations a side are allowed for.
    request.generator = {{"points", "10"}, {"box", "1"}, {"shape", "clusters"}, {"spread", "1"}};
    request.params = {{"bucket_width", "1e-7"}};
    EXPECT_NE(planError(request).find("bounding-box diagonal 22.52"), std::string::npos) << planError(request);
}

TEST(RunChecks, LrvRefusesPairOutputsBeyondTheMemoryBudget)
{
    data::setMemoryLimit(1ull << 30);
    auto request = requestFor("lrv");
    // 20,000 features: 199,990,000 pairs, 1.49 GiB a result (the reference is sampled at this size).
    request.generator = {{"features", "20000"}, {"samples", "80"}};
    const std::string error = planError(request);
    EXPECT_NE(error.find("lrv at 20000 features has 199990000 pairs: 1.49 GiB a result"), std::string::npos) << error;
    EXPECT_NE(error.find("(--memory-limit)"), std::string::npos) << error;
    // 2,000 features: 2 million pairs, 15 MiB a result, twice that with the full reference's.
    request.generator = {{"features", "2000"}, {"samples", "80"}};
    EXPECT_EQ(planError(request), "");
    data::setMemoryLimit(0);
}

TEST(RunChecks, SdhBucketCheckMatchesTheVariantsOwn)
{
    // What planSweep refuses is what bucketsFor would refuse when a variant prepares: the same function decides.
    data::PointCloud cloud;
    cloud.x = {0, 3};
    cloud.y = {0, 4};
    cloud.z = {0, 0};
    EXPECT_EQ(sdh::boundingDiagonal(cloud, 2), 5.0);
    EXPECT_EQ(sdh::boundingDiagonal(cloud, 1), 0.0);
    EXPECT_EQ(sdh::bucketsFor(cloud, 1.0).count, 6u);
    EXPECT_THROW(sdh::bucketsFor(cloud, 1e-8), ParameterError);
    EXPECT_THROW(sdh::checkedBuckets(0.0, 5.0, "x"), ParameterError);
}

} // namespace
} // namespace ks

// The generators see the run's stop request (Ctrl-C, the app's Cancel) through the ambient cancel point that the
// sweep sets: stopped before they start, each throws RunCancelled instead of generating; running unstopped, each
// generates as before, and the same data whether or not an ambient point is set.
#include "data/cancel.h"
#include "data/expression_table.h"
#include "data/image_set.h"
#include "data/point_cloud.h"
#include "data/series2d.h"
#include "data/sparse_matrix.h"

#include <gtest/gtest.h>

#include <stop_token>
#include <tuple>
#include <utility>

namespace ks::data {
namespace {

/// Runs `generate` with a stop already requested, and again with an ambient point that is never stopped.
template <class Generate> void expectStoppedThenWhole(Generate generate)
{
    std::stop_source stopped;
    stopped.request_stop();
    {
        const AmbientCancel ambient(stopped.get_token());
        EXPECT_THROW(generate(), RunCancelled);
    }
    const auto plain = generate();
    std::stop_source running;
    const AmbientCancel ambient(running.get_token());
    EXPECT_TRUE(generate() == plain) << "an unstopped ambient point changes nothing";
}

TEST(GeneratorCancel, EveryGeneratorStopsWhenTheRunIsCancelled)
{
    expectStoppedThenWhole([] {
        SeriesGenerator g;
        g.n = 300'001;
        const Series2D s = generateSeries(g);
        return std::make_pair(s.x, s.y);
    });
    for (SparsePattern pattern : {SparsePattern::Uniform, SparsePattern::PowerLaw, SparsePattern::Laplacian2d}) {
        SCOPED_TRACE(static_cast<int>(pattern));
        expectStoppedThenWhole([pattern] {
            SparseGenerator g;
            g.pattern = pattern;
            g.side = 300;
            const CsrMatrix m = generateSparse(g);
            return std::make_tuple(m.rowPtr, m.colIdx, m.values);
        });
    }
    expectStoppedThenWhole([] { return generateVector(200'003, 7); });
    for (CloudShape shape : {CloudShape::UniformBox, CloudShape::GaussianClusters}) {
        expectStoppedThenWhole([shape] {
            CloudGenerator g;
            g.shape = shape;
            g.points = 200'003;
            const PointCloud c = generateCloud(g);
            return std::make_tuple(c.x, c.y, c.z);
        });
    }
    expectStoppedThenWhole([] { return generateExpression(ExpressionGenerator {}).values; });
    expectStoppedThenWhole([] {
        ImageGenerator g;
        g.count = 300;
        return generateImages(g).pixels;
    });
}

} // namespace
} // namespace ks::data

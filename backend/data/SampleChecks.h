#pragma once
// What keeps a source's samples from training the run's model: none at all, a label beyond the
// classes, targets of another width, a shape the model does not take. The trainer refuses them
// before its first step (SourceData.cpp); "Check data" and `hips check-data` say them before a
// run (they printed the counts of data every worker then refused).
#include "DataReaders.h"
#include "Topology.h"

#include <vector>

namespace hips {

// The sample shape the run's model takes ([C, H, W] images, [F] features); empty for a TorchScript
// model without input_shape, which takes the data as it comes.
std::vector<int64_t> modelSampleShape(const TrainingSettings& s);
QString shapeText(const std::vector<int64_t>& shape);  // "1 x 28 x 28"

// Why `data` cannot train a model that takes `shape` (empty: the data's own) with `classes`
// classes (a regression's outputs), as what follows "the data " ("holds label 10, and ..."); empty
// when it can.
QString samplesProblem(const SampleSet& data, const std::vector<int64_t>& shape, int classes);

}  // namespace hips

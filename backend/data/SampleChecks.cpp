#include "SampleChecks.h"

#include <QStringList>

namespace hips {

namespace {

std::vector<int64_t> withoutOnes(const std::vector<int64_t>& shape) {
    std::vector<int64_t> out;
    for (int64_t d : shape)
        if (d != 1) out.push_back(d);
    return out;
}

// The samples' shape as the model's: the same elements in C order (an H x W grey image for a
// 1 x H x W input, a flat row of a table for an image, an image for a feature vector). Where both
// have two dimensions or more (beside those of size 1), the same dimensions in the same order: an
// H x W x C image has the elements of a C x H x W one, in another layout, and read as one would
// be scrambled.
QString shapeProblem(const SampleSet& data, const std::vector<int64_t>& wanted) {
    int64_t elements = 1;
    for (int64_t d : wanted) elements *= d;
    const std::vector<int64_t> have = withoutOnes(data.sampleShape), want = withoutOnes(wanted);
    if (data.elements() == elements && (have.size() < 2 || want.size() < 2 || have == want)) return {};
    const bool channelsLast = have.size() == 3 && want.size() == 3 && have[2] == want[0] && have[0] == want[1] && have[1] == want[2];
    return QStringLiteral("holds samples of %1, and the model takes %2; %3")
        .arg(shapeText(data.sampleShape), shapeText(wanted),
             channelsLast ? QStringLiteral("the data is channels-last (height, width, channels): store it "
                                           "channels-first, e.g. x.transpose(0, 3, 1, 2) in NumPy")
                          : QStringLiteral("set training.input_shape to the data's shape, or reshape the data"));
}

QString labelProblem(const SampleSet& data, int classes) {
    if (data.regression())
        return data.targetWidth == classes ? QString()
                                           : QStringLiteral(
                                                 "has %1 target(s) a sample, and the model %2 output(s); set "
                                                 "training.outputs to %1")
                                                 .arg(data.targetWidth)
                                                 .arg(classes);
    for (int64_t label : data.labels)
        if (label < 0 || label >= classes)
            return QStringLiteral(
                       "holds label %1, and the model has %2 classes (0 to %3); set training.classes, or check the label "
                       "column")
                .arg(label)
                .arg(classes)
                .arg(classes - 1);
    if (!data.classNames.isEmpty() && data.classNames.size() > classes)
        return QStringLiteral("names %1 classes, and the model has %2; set training.classes to %1")
            .arg(data.classNames.size())
            .arg(classes);
    return {};
}

}  // namespace

std::vector<int64_t> modelSampleShape(const TrainingSettings& s) {
    if (s.inputShape.size() == 3) return {s.inputShape[0], s.inputShape[1], s.inputShape[2]};
    if (s.torchScript() && s.inputShape.isEmpty()) return {};
    const InputShape in = s.modelInput();
    if (in.size == 1) return {in.channels};
    return {in.channels, in.size, in.size};
}

QString shapeText(const std::vector<int64_t>& shape) {
    QStringList dims;
    for (int64_t d : shape) dims << QString::number(d);
    return dims.join(QStringLiteral(" x "));
}

QString samplesProblem(const SampleSet& data, const std::vector<int64_t>& shape, int classes) {
    if (data.size() == 0) return QStringLiteral("holds no samples; check its path and files");
    if (!shape.empty())
        if (const QString problem = shapeProblem(data, shape); !problem.isEmpty()) return problem;
    return labelProblem(data, classes);
}

}  // namespace hips

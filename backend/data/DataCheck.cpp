#include "DataCheck.h"

#include "DataFields.h"
#include "DataRoots.h"
#include "SampleChecks.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace hips {

ReadOptions readOptionsFor(const TrainingSettings& s) {
    ReadOptions options;
    const InputShape input = s.modelInput();
    if (s.inputShape.size() == 3) {
        options.channels = s.inputShape[0];
        options.height = s.inputShape[1];
        options.width = s.inputShape[2];
    } else if (s.inputShape.isEmpty() && !s.torchScript() && input.size > 1) {
        options.channels = input.channels;
        options.height = options.width = input.size;
    }
    options.regression = s.regression();
    options.dataRoots = defaultDataRootsFile();
    options.modelShape = modelSampleShape(s);
    options.classes = s.classes;
    return options;
}

QString checkSource(const DataSource& source, const ReadOptions& options) {
    const SampleSet samples = readSamples(source, options);
    const std::vector<int64_t> shape = options.modelShape.empty() ? samples.sampleShape : options.modelShape;
    if (const QString problem = options.classes > 0 ? samplesProblem(samples, shape, options.classes) : QString(); !problem.isEmpty())
        throw DataError(("the data " + problem).toStdString());
    return describeSamples(samples);
}

QByteArray dataCheckRequest(const DataSource& source, const ReadOptions& options) {
    const QJsonObject request{{"data", dataSourceJson(source)},
                              {"regression", options.regression},
                              {"channels", options.channels},
                              {"height", options.height},
                              {"width", options.width},
                              {"shape", QJsonArray::fromVariantList([&] {
                                   QVariantList dims;
                                   for (int64_t d : options.modelShape) dims << qlonglong(d);
                                   return dims;
                               }())},
                              {"classes", options.classes}};
    return QJsonDocument(request).toJson(QJsonDocument::Compact).toBase64();
}

QString runDataCheckRequest(const QByteArray& request) {
    constexpr qsizetype kMaxRequest = 64 * 1024;  // a source is a path and a few options
    if (request.size() > kMaxRequest) throw DataError("the data check request is larger than any source; send one source");
    const auto decoded = QByteArray::fromBase64Encoding(request, QByteArray::AbortOnBase64DecodingErrors);
    QJsonParseError error{};
    const QJsonDocument json = decoded ? QJsonDocument::fromJson(*decoded, &error) : QJsonDocument();
    if (!decoded || !json.isObject())
        throw DataError("the data check request is not base64 of a JSON object; use the designer's Check data or hips check-data");
    const QJsonObject o = json.object();
    TopologyIssues issues;
    JsonFields fields(o, QStringLiteral("$"), &issues);
    const std::optional<DataSource> source = readDataSource(fields, "data");
    ReadOptions options;
    options.regression = fields.boolean("regression", false);
    options.channels = fields.integer("channels", 0, 0, 4);
    options.height = fields.integer("height", 0, 0, 65536);
    options.width = fields.integer("width", 0, 0, 65536);
    options.classes = fields.integer("classes", 0, 0, 1 << 20);
    for (const QJsonValue& d : o.value(QStringLiteral("shape")).toArray()) {
        if (!d.isDouble() || d.toDouble() < 1 || d.toDouble() > 1 << 20 || options.modelShape.size() >= 8)
            throw DataError(
                "the data check request's shape is not a few sizes of at least 1; use the designer's Check data or hips check-data");
        options.modelShape.push_back(int64_t(d.toDouble()));
    }
    if (!source || !issues.isEmpty())
        throw DataError(
            ("the data check request is malformed: " + (issues.isEmpty() ? QStringLiteral("no data source") : issues.first().toString()))
                .toStdString());
    options.dataRoots = defaultDataRootsFile();  // this host's own say, never the request's
    return checkSource(*source, options);
}

}  // namespace hips

#include "DataCheck.h"

#include "DataFields.h"
#include "DataRoots.h"

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
    return options;
}

QByteArray dataCheckRequest(const DataSource& source, const ReadOptions& options) {
    const QJsonObject request{{"data", dataSourceJson(source)},
                              {"regression", options.regression},
                              {"channels", options.channels},
                              {"height", options.height},
                              {"width", options.width}};
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
    if (!source || !issues.isEmpty())
        throw DataError(
            ("the data check request is malformed: " + (issues.isEmpty() ? QStringLiteral("no data source") : issues.first().toString()))
                .toStdString());
    options.dataRoots = defaultDataRootsFile();  // this host's own say, never the request's
    return describeSamples(readSamples(*source, options));
}

}  // namespace hips

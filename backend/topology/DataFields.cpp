#include "DataFields.h"

#include "DataFormatRegistry.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QLocale>
#include <QRegularExpression>

namespace hips {

namespace {

// (Every message is translated in the TopologyCheck context, as the other checks are, with
// QCoreApplication::translate spelled out: lupdate cannot see through a wrapper.)

// A TextList option may be written as a JSON array of strings or as one comma-separated string.
std::optional<QString> optionText(JsonFields& f, const DataOption& option) {
    const QJsonValue v = f.value(option.name);
    if (option.kind == DataOption::Kind::TextList && v.isArray()) {
        QStringList parts;
        for (const QJsonValue& item : v.toArray()) {
            if (!item.isString() || item.toString().trimmed().isEmpty() || item.toString().contains(QLatin1Char(','))) {
                f.issue(option.name, QCoreApplication::translate("TopologyCheck", "must be a list of non-empty names without commas"));
                return std::nullopt;
            }
            parts << item.toString().trimmed();
        }
        return parts.join(QLatin1Char(','));
    }
    if (option.kind == DataOption::Kind::Number) {
        if (!v.isDouble()) {
            f.issue(option.name, QCoreApplication::translate("TopologyCheck", "must be a number"));
            return std::nullopt;
        }
        return QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest);
    }
    const QString text = f.string(option.name, {});
    if (text.isEmpty()) return std::nullopt;
    return text;
}

}  // namespace

std::optional<DataSource> readDataSource(JsonFields& parent, const char* key) {
    const auto o = parent.object(key);
    if (!o) return std::nullopt;
    JsonFields f(*o, parent.path(key), parent.issues());
    DataSource source;
    source.format = f.string("format", {}, true);
    source.path = f.string("path", {}, true);
    const DataFormatInfo* format = DataFormatRegistry::find(source.format);
    if (!format) {
        if (!source.format.isEmpty())
            f.issue("format", QCoreApplication::translate("TopologyCheck", "'%1' is not a data format; use one of: %2")
                                  .arg(source.format, DataFormatRegistry::names().join(", ")));
        return std::nullopt;
    }
    QStringList known{QStringLiteral("format"), QStringLiteral("path")};
    for (const DataOption& option : format->options) {
        known << option.name;
        if (!f.has(option.name)) continue;
        if (const auto text = optionText(f, option)) source.options.insert(option.name, *text);
    }
    f.rejectUnknown(known, QCoreApplication::translate("TopologyCheck", "%1 option").arg(source.format));
    if (source.path.isEmpty()) return std::nullopt;
    if (format->option(QStringLiteral("delimiter")) && source.option(QStringLiteral("delimiter"), QStringLiteral(",")).size() != 1)
        f.issue("delimiter", QCoreApplication::translate("TopologyCheck", "must be one character, such as \",\" or \";\""));
    return source;
}

QJsonObject dataSourceJson(const DataSource& source) {
    QJsonObject o{{"format", source.format}, {"path", source.path}};
    const DataFormatInfo* format = DataFormatRegistry::find(source.format);
    for (auto it = source.options.begin(); it != source.options.end(); ++it) {
        const DataOption* option = format ? format->option(it.key()) : nullptr;
        if (option && option->kind == DataOption::Kind::TextList)
            o.insert(it.key(), QJsonArray::fromStringList(source.listOption(it.key())));
        else if (option && option->kind == DataOption::Kind::Number) o.insert(it.key(), it->toDouble());
        else o.insert(it.key(), *it);
    }
    return o;
}

void readModel(JsonFields& training, const StrategyList& builtIns, TrainingSettings* t) {
    if (const QJsonValue v = training.value("model"); v.isObject()) {
        JsonFields f(v.toObject(), training.path("model"), training.issues());
        f.rejectUnknown({"torchscript", "sha256", "tensors", "buffers"}, QCoreApplication::translate("TopologyCheck", "model field"));
        t->model = QString::fromLatin1(TrainingSettings::kTorchScript);
        t->modelFile = f.string("torchscript", {}, true);
        t->modelSha256 = f.string("sha256", {});
        static const QRegularExpression hex(QStringLiteral("^[0-9a-f]{64}$"));  // (it names a file on each host)
        if (!t->modelSha256.isEmpty() && !hex.match(t->modelSha256).hasMatch()) {
            f.issue("sha256",
                    QCoreApplication::translate("TopologyCheck",
                                                "must be the file's SHA-256 as 64 lowercase hex digits (hips run fills it in; remove it)"));
            t->modelSha256.clear();
        }
        if (const auto tensors = f.array("tensors")) {
            for (const QJsonValue& n : *tensors) {
                const double size = n.toDouble(-1);
                if (!n.isDouble() || size < 0 || size > 4e9 || size != double(qint64(size))) {  // (0: an empty probe tensor)
                    f.issue("tensors", QCoreApplication::translate("TopologyCheck",
                                                                   "must list each tensor's element count, a whole number in [0, 4e9]"));
                    t->modelTensors.clear();
                    break;
                }
                t->modelTensors.push_back(size_t(size));
            }
        }
        // (Of those, the last `buffers` are floating buffers; hips run fills it in with the sizes.)
        t->modelBufferTensors = f.integer("buffers", 0, 0, int(std::min<size_t>(t->modelTensors.size(), 1000000)));
    } else {
        const QString given = training.string("model", t->model);
        if (const StrategyInfo* s = findStrategy(builtIns, given)) t->model = s->name;
        else
            training.issue("model", QCoreApplication::translate(
                                        "TopologyCheck",
                                        "'%1' is not a built-in model; use one of: %2, or {\"torchscript\": \"/path/model.pt\"} "
                                        "for a model saved from PyTorch")
                                        .arg(given, strategyNames(builtIns).join(", ")));
    }
    if (const auto shape = training.array("input_shape")) {
        for (const QJsonValue& d : *shape) {
            const double n = d.toDouble(-1);
            if (!d.isDouble() || n < 1 || n > 65536 || n != double(int(n))) {
                training.issue("input_shape",
                               QCoreApplication::translate("TopologyCheck",
                                                           "must be [features] or [channels, height, width], whole numbers in [1, 65536]"));
                t->inputShape.clear();
                return;
            }
            t->inputShape << int(n);
        }
        if (t->inputShape.size() != 1 && t->inputShape.size() != 3) {
            training.issue("input_shape", QCoreApplication::translate("TopologyCheck", "must be [features] or [channels, height, width]"));
            t->inputShape.clear();
        }
    }
}

QJsonValue modelJson(const TrainingSettings& t) {
    if (!t.torchScript()) return t.model;
    QJsonObject o{{"torchscript", t.modelFile}};
    if (!t.modelSha256.isEmpty()) o.insert("sha256", t.modelSha256);
    if (!t.modelTensors.empty()) {
        QJsonArray sizes;
        for (size_t n : t.modelTensors) sizes.append(qint64(n));
        o.insert("tensors", sizes);
        if (t.modelBufferTensors > 0) o.insert("buffers", t.modelBufferTensors);
    }
    return o;
}

}  // namespace hips

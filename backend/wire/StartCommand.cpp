#include "StartCommand.h"

#include "PrintableText.h"

#include <QDir>
#include <QFileInfo>

namespace hips {

Message StartCommand::toMessage() const {
    return Message(QStringLiteral("start"), {{QStringLiteral("node"), node},
                                             {QStringLiteral("out_dir"), outDir},
                                             {QStringLiteral("topology"), topologyJson},
                                             {QStringLiteral("threads"), threads},
                                             {QStringLiteral("placement"), placement},
                                             {QStringLiteral("log_on_host"), logOnHost},
                                             {QStringLiteral("node_key"), QString::fromLatin1(nodeKey.toText())},
                                             {QStringLiteral("peer_keys"), QString::fromUtf8(peerKeys.toText())}});
}

bool isInside(const QString& path, const QString& root) {
    if (root == QLatin1String("/")) return path.size() > 1 && path.startsWith(u'/');
    return path.size() > root.size() + 1 && path.startsWith(root) && path.at(root.size()) == u'/';
}

// `path` with the links of its deepest existing folder resolved (the rest as it is).
static QString resolvedAsFarAsItExists(const QString& path) {
    QString existing = path, rest;
    while (!QFileInfo::exists(existing) && existing != QLatin1String("/")) {
        rest = QLatin1Char('/') + QFileInfo(existing).fileName() + rest;
        existing = QFileInfo(existing).path();
    }
    const QString real = QFileInfo(existing).canonicalFilePath();
    return real.isEmpty() ? path : QDir::cleanPath(real + rest);
}

std::optional<StartCommand> StartCommand::fromMessage(const Message& m, const QString& runsRoot, const QString& home, QString* error) {
    auto refuse = [error](const QString& why) {
        *error = why;
        return std::nullopt;
    };
    const auto text = [&m](const char* key) {
        const QCborValue v = m.fields.value(QLatin1String(key));
        return v.isString() ? std::optional<QString>(v.toString()) : std::nullopt;
    };
    StartCommand c;
    const auto node = text("node"), outDir = text("out_dir"), topology = text("topology"), nodeKey = text("node_key"),
               peerKeys = text("peer_keys");
    if (!node || !outDir || !topology || !nodeKey || !peerKeys)
        return refuse(
            QStringLiteral("a start needs node, out_dir, topology, node_key and peer_keys as text; use a "
                           "controller of the same version"));
    if (node->isEmpty() || node->size() > kMaxNodeIdChars)
        return refuse(QStringLiteral("the node id '%1' is empty or too long").arg(printableText(*node, 80)));
    c.node = *node;

    QString path = *outDir;
    if (path.startsWith(QLatin1String("~/"))) path = home + path.mid(1);
    if (QDir::isRelativePath(path) || path.contains(QChar(0)))
        return refuse(QStringLiteral("the output directory '%1' is not an absolute path").arg(printableText(*outDir, 200)));
    c.outDir = QDir::cleanPath(path);
    // (runsRoot is as the kernel resolves it; the controller names the folder as install_dir says,
    // which may go through a link: a home on a shared file system. The agent confines it again,
    // links resolved, as it makes it.)
    if (!isInside(c.outDir, runsRoot)) c.outDir = resolvedAsFarAsItExists(c.outDir);  // (no link followed again)
    if (!isInside(c.outDir, runsRoot))
        return refuse(QStringLiteral("the output directory '%1' is outside this agent's runs directory %2")
                          .arg(printableText(*outDir, 200), runsRoot));

    c.nodeKey = CurveKeyPair::fromText(nodeKey->toLatin1());
    c.peerKeys = PeerKeys::fromText(peerKeys->toUtf8());
    if (c.nodeKey.isNull() || c.peerKeys.isEmpty() || c.peerKeys.keyOf(c.node) != c.nodeKey.publicKey)
        return refuse(QStringLiteral("the start of %1 carries no valid keys for it; use a controller of the same version")
                          .arg(printableText(c.node, 80)));

    const QCborValue threads = m.fields.value(QStringLiteral("threads"));
    if (!threads.isInteger() || threads.toInteger() < 1 || threads.toInteger() > kMaxThreads)
        return refuse(QStringLiteral("threads must be an integer from 1 to %1").arg(kMaxThreads));
    c.threads = int(threads.toInteger());
    const QCborValue placement = m.fields.value(QStringLiteral("placement"));  // (none from an older controller)
    if (!placement.isUndefined() && (!placement.isInteger() || placement.toInteger() < 0))
        return refuse(QStringLiteral("placement must be a non-negative integer"));
    c.placement = placement.isInteger() ? placement.toInteger() : 0;
    const QCborValue logOnHost = m.fields.value(QStringLiteral("log_on_host"));  // (none from an older controller)
    if (!logOnHost.isUndefined() && !logOnHost.isBool()) return refuse(QStringLiteral("log_on_host must be true or false"));
    c.logOnHost = logOnHost.isTrue();
    c.topologyJson = *topology;
    return c;
}

}  // namespace hips

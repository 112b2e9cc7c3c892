#include "MetricsReporter.h"

#include "Channel.h"
#include "StartupClock.h"
#include "Vocabulary.h"
#include "RoleScope.h"

#include <QCborArray>
#include <QDateTime>
#include <QRandomGenerator>
#include <QJsonDocument>
#include <QJsonObject>
#include <QFile>
#include <QHash>
#include <chrono>
#include <cstdio>
#include <sys/resource.h>
#include <unistd.h>

namespace hips {

namespace {

// The role's CPU time: its process's, or, for a role that is a thread of a shared trainer
// (RoleScope.h), its own thread's, so that 64 workers of one process do not each claim all of it.
double roleCpuSeconds() {
    rusage usage{};
    if (getrusage(threadRoleScope() ? RUSAGE_THREAD : RUSAGE_SELF, &usage) != 0) return 0;
    auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

qint64 residentBytes() {  // the second field of /proc/self/statm, in pages; -1 where there is none
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly)) return -1;
    const QList<QByteArray> fields = statm.read(256).split(' ');
    bool ok = false;
    const qint64 pages = fields.value(1).toLongLong(&ok);
    return ok ? pages * sysconf(_SC_PAGESIZE) : -1;
}

double steadySeconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void MetricsReporter::reportUsage(const QCborValue& round) const {
    const double now = steadySeconds(), cpu = roleCpuSeconds();
    if (m_usageWall < 0) {  // since the process started (its start-up counts too): every process has one
        m_usageWall = now - std::max(0.001, secondsSinceRoleStart());
        m_usageCpu = 0;
    } else if (now - m_usageWall < 1) {
        return;  // at most one a second after that, however short the rounds
    }
    QCborMap fields{{metric::kCpuPercent, 100 * (cpu - m_usageCpu) / (now - m_usageWall)}};
    // (A shared trainer's resident memory is one figure for all of its workers: one of them reports it.)
    if (const qint64 rss = speaksForProcessMemory() ? residentBytes() : -1; rss > 0) fields.insert(metric::kRssBytes, rss);
    if (round.isInteger()) fields.insert(metric::kRound, round);
    m_usageWall = now;
    m_usageCpu = cpu;
    report(metric::kUsage, fields);
}

MetricsReporter::MetricsReporter(QString node)
    : m_node(std::move(node)), m_instance(QString::number(QRandomGenerator::system()->generate64(), 16)) {}

void MetricsReporter::report(const QString& kind, QCborMap fields) const {
    if (kind == metric::kTraffic) fields.insert(metric::kProcessInstance, m_instance);
    fields.insert(QStringLiteral("kind"), kind);
    fields.insert(QStringLiteral("node"), m_node);
    fields.insert(QStringLiteral("t"), m_clock ? m_clock() : double(QDateTime::currentMSecsSinceEpoch()) / 1000.0);
    const QByteArray line = QJsonDocument(fields.toJsonObject()).toJson(QJsonDocument::Compact);
    std::fprintf(roleOut(), "%s%s\n", kPrefix, line.constData());
    std::fflush(roleOut());
    if (kind == metric::kTraffic && m_reportsUsage) reportUsage(fields.value(metric::kRound));
}

QCborMap trafficFields(const Channel& a, const Channel* b) {
    return trafficFields(b ? std::vector<const Channel*>{&a, b} : std::vector<const Channel*>{&a});
}

QCborMap trafficFields(const std::vector<const Channel*>& channels) {
    QCborArray links;
    quint64 errors = 0, undeliverable = 0, sealedFrames = 0;
    bool sealed = false;
    for (const Channel* c : channels) {
        for (const QCborValue& v : c->traffic().toCbor()) links.append(v);
        errors += c->stats().totalErrors();
        undeliverable += c->undeliverable();
        if (const SealedPlane* plane = c->sealedPlane()) {  // transport_security sealed
            sealed = true;
            sealedFrames += plane->framesSealed();
            errors += plane->bulkRefused();  // frames refused on the bulk socket: a stranger's, or cut or altered
        }
    }
    QCborMap fields{{QStringLiteral("links"), linksByPeer(links)},
                    {QStringLiteral("wire_errors"), qint64(errors)},
                    {QStringLiteral("undeliverable"), qint64(undeliverable)}};
    if (sealed) fields.insert(QStringLiteral("sealed_frames"), qint64(sealedFrames));  // sent sealed beside CURVE
    return fields;
}

QCborArray linksByPeer(const QCborArray& links) {
    QCborArray out;
    QHash<QString, qsizetype> rowOf;
    for (const QCborValue& v : links) {
        const QString peer = v[metric::kPeer].toString();
        const auto row = rowOf.constFind(peer);
        if (row == rowOf.cend()) {
            rowOf.insert(peer, out.size());
            out.append(v);
            continue;
        }
        QCborMap merged = out.at(*row).toMap();
        for (const QLatin1String key : {metric::kSent, metric::kReceived})
            merged.insert(key, merged.value(key).toInteger() + v[key].toInteger());
        out[*row] = merged;
    }
    return out;
}

void insertDataNames(QCborMap& startup, const QStringList& classNames, const QStringList& featureNames) {
    if (!classNames.isEmpty()) startup.insert(metric::kClassNames, QCborArray::fromStringList(classNames));
    if (!featureNames.isEmpty()) startup.insert(metric::kFeatureNames, QCborArray::fromStringList(featureNames));
}

}  // namespace hips

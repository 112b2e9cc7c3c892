#include "RunRecorder.h"

#include "AgentClient.h"
#include "RunStore.h"
#include "TopologyWriter.h"
#include "Vocabulary.h"

#include <QDateTime>
#include <QHash>
#include <QTimer>

namespace hips {

RunRecorder::~RunRecorder() {
    if (!m_store) return;  // a newer run may own the listeners by now
    m_store->clearCommitListener(m_listenerToken);
    m_store->clearErrorListener(m_errorToken);
    m_store->clearStallListener(m_stallToken);
}

bool RunRecorder::begin(const Topology& topology, const QString& runDir, qint64 run, int resumeRound, qint64 keptMetricsBytes) {
    if (!m_store) return true;
    Topology own = topology;  // the run's own: a resume is how it goes on, not what it is
    own.training.resumeRound = 0;
    QJsonObject settings = TopologyWriter::toJsonObject(own).value("training").toObject();
    // How each party that does not use a party server sums (Party::transport): its report and
    // comparisons name it beside the mode.
    QStringList transports;
    for (const Party& p : own.parties)
        if (p.collective() && !p.central) transports << p.id + QStringLiteral(": ") + p.transport;
    if (!transports.isEmpty()) settings.insert(QStringLiteral("party_transports"), transports.join(QStringLiteral(", ")));
    if (resumeRound > 0) {
        m_runId = run;
        const std::optional<RunRecord> before = m_store->run(run);
        const QByteArray topologyBefore = m_store->topologyJson(run);
        const QJsonObject settingsBefore = m_store->settings(run);
        const double at = m_store->resumeRun(m_runId, resumeRound, TopologyWriter::toJson(own), settings, keptMetricsBytes);
        if (before) m_resumedFrom = ResumedFrom{*before, topologyBefore, settingsBefore, resumeRound, at};
        m_cutAfter = resumeRound;
    } else {
        m_runId = m_store->beginRun(topology.name, TopologyWriter::toJson(own), settings, runDir);
    }
    if (m_runId <= 0) {
        m_error = m_store->writeError();
        return false;
    }
    listen();
    return true;
}

bool RunRecorder::reattach(qint64 run, const QString& note) {
    if (!m_store) return true;
    m_runId = run;
    m_cutAfter = m_store->pendingCut(run);  // (its resumed controller died before its first new round)
    m_store->reattachRun(run, note);
    listen();
    return true;
}

void RunRecorder::listen() {
    m_listenerToken = m_store->setCommitListener([this](quint64 mark) {
        QMetaObject::invokeMethod(
            this, [this, mark] { acknowledgeCommitted(mark); }, Qt::QueuedConnection);
    });
    // A history that cannot be written ends the run: what the agents journal is acknowledged
    // only once stored, so nothing acknowledged is lost, but nothing more could be kept.
    m_errorToken = m_store->setErrorListener([this](const QString& e) {
        QMetaObject::invokeMethod(
            this, [this, e] { Q_EMIT failed(e); }, Qt::QueuedConnection);
    });
    m_stallToken = m_store->setStallListener([this](const QString& text) {
        QMetaObject::invokeMethod(
            this, [this, text] { tellStall(text); }, Qt::QueuedConnection);
    });
}

// Each change of the history's lock state once, whichever of the listener and finish() sees it first.
void RunRecorder::tellStall(const QString& text) {
    if (text.isEmpty() || text == m_toldStall) return;
    m_toldStall = text;
    Q_EMIT stalled(text);
}

void RunRecorder::process(const ProcessInfo& p) {
    if (!m_store || m_runId <= 0) return;
    ProcessRecord r;
    r.node = p.node.id;
    r.role = roleName(p.node.kind);
    r.party = p.node.party;
    r.host = p.node.host;
    r.rank = p.node.rank;
    r.pid = p.pid;
    r.started = p.started;
    r.ended = p.ended;
    r.exitCode = p.exitCode;
    r.crashed = p.crashed;
    r.error = p.error;
    r.state = processStateName(p.state);
    m_store->recordProcess(m_runId, r);
}

void RunRecorder::metric(const QJsonObject& record) {
    if (!m_store || m_runId <= 0) return;
    // The resumed run's first round past its checkpoint: what the run had recorded of it goes.
    if (m_cutAfter && record.value(metric::kRound).toInt(-1) > *m_cutAfter) {
        m_store->cutRunAfter(m_runId, *m_cutAfter);
        m_cutAfter.reset();
        m_resumedFrom.reset();
    }
    m_store->appendRecord(m_runId, record);
}

void RunRecorder::event(const QString& level, const QString& source, const QString& text) {
    if (m_store && m_runId > 0) m_store->appendEvent(m_runId, unixNow(), level, source, text);
}

void RunRecorder::beginEvent() {
    if (m_store && m_runId > 0) m_store->beginGroup();
}

void RunRecorder::noteEvent(AgentClient* agent, qint64 seq, qint64 metricsBytes, const std::function<QString()>& metricsDurable) {
    if (!m_store || m_runId <= 0) return;
    // (No agent: hips simulate's records come from our own child, and there is nothing to acknowledge.)
    if (agent)
        m_store->markAgentEvent(m_runId, agent->host(), seq, metricsBytes, metricsDurable);  // in the same commit as the event's rows
    m_store->endGroup();
    if (agent && !m_agentsGone) m_pendingAcks.append(PendingAck{m_store->postedMark(), seq, agent});
}

void RunRecorder::afterStored(std::function<void()> shown) {
    if (!m_store || m_runId <= 0) return shown();
    m_pendingCalls.append(PendingCall{m_store->postedMark(), std::move(shown)});
    runStoredCalls(m_store->committedMark());
}

void RunRecorder::runStoredCalls(quint64 committedMark) {
    while (!m_pendingCalls.isEmpty() && m_pendingCalls.first().storeMark <= committedMark) m_pendingCalls.takeFirst().call();
}

void RunRecorder::acknowledgeCommitted(quint64 committedMark) {
    runStoredCalls(committedMark);
    QHash<AgentClient*, qint64> upTo;
    while (!m_pendingAcks.isEmpty() && m_pendingAcks.first().storeMark <= committedMark) {
        const PendingAck a = m_pendingAcks.takeFirst();
        upTo[a.agent] = a.seq;
    }
    for (auto it = upTo.begin(); it != upTo.end(); ++it) it.key()->acknowledge(it.value());
}

void RunRecorder::finish(const RunSummary& s, std::function<void(bool)> stored) {
    if (!m_store || m_runId <= 0) return stored(true);
    if (m_resumedFrom && !s.ok) {  // the resume ended before its first round: the run stays as it was
        RunRecord before = m_resumedFrom->before;
        // But for its privacy guarantee: the attempt's noised updates of the round after the
        // checkpoint may have left, and its summary counts them.
        if (!before.summary.isEmpty() && !s.privacy.isEmpty()) before.summary.insert(QStringLiteral("privacy"), s.privacy);
        m_store->restoreRun(before, m_resumedFrom->at, m_resumedFrom->topologyJson, m_resumedFrom->settings,
                            QStringLiteral("resuming from the checkpoint of round %1 %2 before its first round: %3")
                                .arg(m_resumedFrom->round)
                                .arg(s.stopped ? QStringLiteral("was stopped") : QStringLiteral("failed"), s.reason));
    } else {
        if (!s.ok) event(s.stopped ? QStringLiteral("info") : QStringLiteral("error"), QStringLiteral("controller"), s.reason);
        m_store->finishRun(m_runId, s.ok ? "finished" : s.stopped ? "stopped" : "failed", s.toJson());
    }
    const quint64 target = m_store->postedMark();
    if (m_store->flushWithin(1)) {  // the common case: committed in milliseconds
        runStoredCalls(m_store->committedMark());
        return stored(true);
    }
    auto* poll = new QTimer(this);
    connect(poll, &QTimer::timeout, this, [this, poll, target, stored] {
        tellStall(m_store->lockedNotice());
        const bool done = m_store->committedMark() >= target;
        if (!done && m_store->writeError().isEmpty()) return;
        poll->stop();
        poll->deleteLater();
        if (!done) m_error = m_store->writeError();
        else runStoredCalls(m_store->committedMark());
        stored(done);
    });
    poll->start(100);
}

}  // namespace hips

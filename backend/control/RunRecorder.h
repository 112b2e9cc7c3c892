#pragma once
// What a run leaves in the run history (RunStore): its row, each process's row, every metric
// record and event, and its outcome. And the acknowledgements that make the history lossless: an
// event an agent journals is acknowledged to it only once the history has committed it, so an
// event is never both unacknowledged-and-dropped nor stored twice. Without a store (tests, a
// dry run) it records nothing and the agent clients acknowledge on their own.
#include "RunController.h"

#include "HistoryRecords.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <functional>
#include <optional>

namespace hips {

class AgentClient;
class RunStore;

class RunRecorder : public QObject {
    Q_OBJECT
public:
    explicit RunRecorder(QObject* parent = nullptr) : QObject(parent) {}
    ~RunRecorder() override;

    void setStore(RunStore* store) { m_store = store; }
    bool active() const { return m_store != nullptr; }
    // A new run's row, or (resumeRound > 0) the row `run` goes on in, its metrics.jsonl
    // `keptMetricsBytes` long (RunStore::resumeRun). False with error() when the history cannot be
    // written.
    bool begin(const Topology& topology, const QString& runDir, qint64 run, int resumeRound, qint64 keptMetricsBytes);
    // The run `run` goes on under this controller, which attached to its agents (hips attach).
    bool reattach(qint64 run, const QString& note);
    qint64 runId() const { return m_runId; }
    QString error() const { return m_error; }

    void process(const ProcessInfo& p);
    void metric(const QJsonObject& record);
    void event(const QString& level, const QString& source, const QString& text);
    // An event from `agent` (its sequence number `seq`), acknowledged to it once committed; the
    // history keeps the agent's mark with it, and metrics.jsonl's length then (hips attach),
    // made durable first by `metricsDurable` (RunDirectory::metricsDurability).
    void noteEvent(AgentClient* agent, qint64 seq, qint64 metricsBytes, const std::function<QString()>& metricsDurable = {});
    // Before an agent event's rows: they and its mark (noteEvent) are committed together.
    void beginEvent();
    // The run's outcome; `stored` is called once the history holds all of the run (true), or
    // cannot (false, with error()). At once in the common case; a history another program holds
    // locked is waited for from the event loop, so a window stays live and says why it waits.
    void finish(const RunSummary& summary, std::function<void(bool stored)> stored);
    // Runs `shown` once the history has committed everything posted so far (at once without a
    // history): rounds are printed and charted only once stored, so a controller killed between
    // the two never showed a round its history lacks. Calls run in the order they were made.
    void afterStored(std::function<void()> shown);
    // The agents are going: nothing more is acknowledged to them.
    void forgetAgents() {
        m_pendingAcks.clear();
        m_agentsGone = true;
    }

Q_SIGNALS:
    void failed(const QString& error);  // the history cannot be written any more
    void stalled(const QString& text);  // another program holds the history locked, or no longer does

private:
    void listen();  // acknowledgements once committed, and the history's failure
    void acknowledgeCommitted(quint64 committedMark);
    void runStoredCalls(quint64 committedMark);
    void tellStall(const QString& text);

    RunStore* m_store = nullptr;
    qint64 m_runId = 0;
    QString m_error;
    struct PendingAck {
        quint64 storeMark;  // the event is durable once the store has committed this far
        qint64 seq;
        AgentClient* agent;
    };
    QList<PendingAck> m_pendingAcks;
    struct PendingCall {
        quint64 storeMark;
        std::function<void()> call;
    };
    QList<PendingCall> m_pendingCalls;  // afterStored()
    // A resumed run, until it records a round after its checkpoint: the run's row as it was, to
    // put back if the resume ends before that (a failed attempt leaves a stopped run stopped).
    struct ResumedFrom {
        RunRecord before;
        QByteArray topologyJson;
        QJsonObject settings;
        int round = 0;
        double at = 0;  // when it was resumed
    };
    std::optional<ResumedFrom> m_resumedFrom;
    std::optional<int> m_cutAfter;  // the rows past this round go at the first record of a later one (RunStore::pendingCut)
    bool m_agentsGone = false;  // forgetAgents(): their clients are being deleted
    quint64 m_listenerToken = 0, m_errorToken = 0, m_stallToken = 0;
    QString m_toldStall;  // the last word on the history's lock state
};

}  // namespace hips

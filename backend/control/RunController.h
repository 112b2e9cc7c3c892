#pragma once
// The run state machine, shared by the CLI and the GUI. Its agents are an AgentFleet (local,
// remote, or attached); its history is written by a RunRecorder.
//
//   Idle ─start/resume─▶ Deploying ─fleet ready─▶ Starting ─every role started─▶ Running
//   Idle ─attach─────────────────────────────────────────────────────────────────▶ Running
//
//   Running ─every role ended─▶ finishWhenQuiet ─▶ Stopping ─▶ fleet shutdown ─▶ gone
//   any ─fail(reason) / stop(reason)─▶ Stopping: stop_all, then fleet shutdown after a grace
//   gone (or the grace ran out) ─▶ emitFinished: summary.json, the history's outcome, then
//        Finished (every round done), Stopped (by its user) or Failed (with the first reason)
//
// A role that exits badly fails the run (under fault_policy continue a worker's death does
// not, and a role its agent restarts is Restarting meanwhile), and is named in the reason.
#include "AgentFleet.h"
#include "LabelSpaceCheck.h"
#include "LaunchPlan.h"
#include "MetricsFeed.h"
#include "PrivacyBudget.h"
#include "ProcessTable.h"
#include "RunDirectory.h"
#include "RunClock.h"
#include "RunProgress.h"
#include "RunStore.h"
#include "Topology.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QMap>
#include <QJsonArray>
#include <QSet>
#include <functional>
#include <map>
#include <memory>

namespace hips {

enum class RunState { Idle, Deploying, Starting, Running, Stopping, Finished, Stopped, Failed };
QString runStateName(RunState s);

struct RunSummary {
    bool ok = false;
    bool stopped = false;  // stopped by its user (Stop all, SIGINT): not ok, and not a failure
    QString reason;  // why it failed or stopped; empty on success
    QString runDir;
    int rounds = 0;
    double finalAccuracy = 0, bestAccuracy = 0;
    bool evaluated = false;  // some round's test score came: else both are 0 only for want of one
    bool regression = false;  // the scores are test RMSE (lower is better), not accuracy
    double seconds = 0;
    quint64 bytesInside = 0, bytesAcross = 0;
    qint64 samples = 0;
    QJsonObject privacy;  // the guarantee (PrivacyBudget.h); empty without privacy
    QMap<QString, QStringList> slurmJobs;  // a Slurm party → its batch jobs' ids, in order
    // Rounds, scores, traffic and samples as the run's progress counted them (RunSummary.cpp).
    void takeFigures(const RunProgress& progress, bool regression);
    QJsonObject toJson() const;
};

class RunRecorder;

class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    // Every metric, event and the outcome also go to `store` when one is set (before start()).
    // Agent events are then acknowledged only once the store has committed what they carried.
    void setStore(RunStore* store);
    // How remote hosts are reached (known_hosts, host-key and passphrase prompts); before start().
    void setDeployOptions(const DeployOptions& options) { m_deployOptions = options; }
    // hips simulate (before start()): every role in one process on a virtual clock
    // (SimulatedFleet); the run's times are the records' own, virtual ones.
    void setSimulated(bool simulated) { m_simulated = simulated; }
    bool simulated() const { return m_simulated; }
    // Returns false (and sets error()) when the run cannot even begin.
    bool start(const Topology& topology, const QString& runDir);
    // Goes on with history run `historyRun` in `runDir` from the checkpoint of the topology's
    // training.resume_round (hips run --resume).
    bool resume(const Topology& topology, const QString& runDir, qint64 historyRun);
    // Takes up history run `historyRun`, still under way on its agents after its controller died
    // or was stopped (hips attach): reconnects to them (its directory's agents.json), gets every
    // event the history does not hold yet, and goes on as if it had never left. Needs the store.
    bool attach(qint64 historyRun);
    void stop(const QString& reason);  // user request: stop everything, report as failed with `reason`
    RunState state() const { return m_state; }
    // When (unix ms) the run had run `seconds`: a round's time is when it was aggregated, not
    // when it was shown (rounds are shown once stored, several at a time).
    // When the run had run `seconds` (unix ms). A round taken up again (attached, resumed) is at
    // the time its records say, not counted back from now: the pause between is not on the clock.
    double wallMsAt(double seconds) const {
        if (m_replaying) return m_runClock.unixTime(seconds) * 1000;
        return double(QDateTime::currentMSecsSinceEpoch()) - (elapsed() - seconds) * 1000;
    }
    QString error() const { return m_error; }
    const QString& runDirectory() const { return m_dir.path(); }
    const QMap<QString, ProcessInfo>& processes() const { return m_processes.all(); }

Q_SIGNALS:
    void stateChanged(RunState state);
    void roundCompleted(const RoundRow& row);
    void metricRecord(const QJsonObject& record, double elapsed);  // every role's record, as stored
    void processChanged(const ProcessInfo& process);
    void logLine(const QString& node, const QString& stream, const QString& line);
    void processActivity(const QString& node);
    void deployProgress(const QString& host, const QString& stage);
    // A host's deployment ended: its agent is up (ok), or `error` says what went wrong there.
    void hostDeployed(const QString& host, bool ok, const QString& error,
                      double seconds);  // any word from the node (its liveness, as the GUI shows it)
    // A death, a restart or a node declared down or back (fault_policy continue), as recorded
    // in the history's events.
    void notice(const QString& source, const QString& text);
    void finished(const RunSummary& summary);

private:
    void setState(RunState s);
    void recordNotice(const QString& source, const QString& text);
    void countRestartAgainstPrivacy(const Node& node);  // (RunFaults.cpp)
    void warnOfPrivacyOverrun(int round, const QString& role);
    void noticeDivergence(const RoundRow& row);
    void endStragglersSoon();
    void useFleet(std::unique_ptr<AgentFleet> fleet);
    void endUnfinishedProcesses();
    void tellProcess(const ProcessInfo& p);  // to the history and the screen
    void takeUpProcesses(const QList<ProcessRecord>& stored);
    void takeUpRecord(const QJsonObject& record);
    QString realRunDir() const;  // the run directory with links resolved
    void onAgentsReady();
    void startRoles(const std::function<bool(const ProcessInfo&)>& which);  // schedulers first
    void onAgentRestarting(const QString& host, const QString& how, int attempt, int maxRestarts, int delayMs);
    void startRolesAgain(const QString& host);
    void moveOffLostHost(const QString& host, const QString& error);
    // A Slurm party's nodes: the roles started from now on are told their addresses.
    void placeHosts(const QMap<QString, QString>& addresses);
    void recordSlurmJob(const QString& party, const QString& jobId, int attempt);
    int centralPartyIndex() const;
    void onEvent(AgentClient* agent, const QCborMap& event, qint64 seq);
    // `clockCorrection`: seconds that place its host's stamps on this computer's clock (ClockOffset.h).
    void handleEvent(const QCborMap& event, double clockCorrection);
    void onExited(ProcessInfo& p, const QCborMap& event);
    void onMetric(const QString& node, const QString& json, double clockCorrection);
    double clockCorrectionOf(const AgentClient& agent);  // and says so in the run's log when it changes
    void showOnceStored(const QList<RoundRow>& rows);
    QList<RoundRow> withEpsilon(QList<RoundRow> rows);  // roundCompleted, once the history holds them
    void showReplayed(const QList<RoundRow>& rows);
    void fail(const QString& reason);
    void stopRoles();
    void finishWhenQuiet();
    void shutdownFleet();
    void emitFinished();
    void concludeRun(RunSummary s, bool stored);  // once the history holds the run's end (or cannot)
    double elapsed() const { return m_elapsedCarry + double(m_clock.nsecsElapsed()) / 1e9; }
    void carryOn(const QList<QJsonObject>& kept);
    double m_elapsedCarry = 0;

    Topology m_topology;
    RunState m_state = RunState::Idle;
    QString m_error, m_failure;
    RunDirectory m_dir;
    RunStore* m_store = nullptr;
    bool m_attached = false;  // we took the run up from a controller that went away
    bool m_simulated = false;  // hips simulate
    // Whether records are placed by their own times (attached: they come late; simulated: virtual).
    bool recordTimes() const { return m_attached || m_simulated; }
    bool m_replaying = false;  // rounds the history already holds, shown again (attach, resume)
    RunClock m_runClock;  // attached or simulated: the run's own clock, which its records' times are read on (and resumed, while replaying)
    double m_lastRecordAt = 0;  // attached: the newest record's time into the run
    DeployOptions m_deployOptions;
    LaunchPlan m_launch;  // the nodes' keys, and what each role is started with
    std::unique_ptr<RunProgress> m_progress;
    LabelSpaceCheck m_labelSpace;
    ProcessTable m_processes;
    QElapsedTimer m_clock;
    std::unique_ptr<RunRecorder> m_recorder;  // the history: rows, events, acknowledgements
    qint64 m_resumedRun = 0;  // the history run a resumed run goes on in
    bool m_concluding = false;  // emitFinished() ran: the outcome is settled, the history may still be storing it
    bool m_userStopped = false;  // stop() was called: the run ends "stopped", not "failed"
    bool m_privacyCut = false;  // target_epsilon cut the rounds: a run that ends reached its privacy budget
    QList<RoundRow> m_unshownRows;  // this agent event's completed rounds, shown once it is stored
    MetricsFeed m_feed;  // the roles' records as the run keeps them
    QHash<QString, double> m_clockCorrections;  // by host, as last said in the log
    QMap<QString, QStringList> m_slurmJobs;  // by party, for the summary
    QSet<QString> m_agentsRestarting;  // hosts ("" for the local agent) whose agent is being started again
    std::optional<DrawTally> m_privacyTally;  // the rows' epsilon (showOnceStored)
    RestartUses m_restartUses;  // under privacy: the restarts that use a round once more (RunFaults.cpp)
    QList<std::pair<int, int>> m_rerunsNotInTopology;  // privacy-reruns.json's (RunDirectory.h)
    bool m_endingStragglers = false;  // fault_policy continue: the rounds are done, workers left are stopped
    std::unique_ptr<AgentFleet> m_fleet;  // last: it goes first
};

}  // namespace hips

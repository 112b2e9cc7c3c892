#pragma once
// What the controller makes of the roles' metric records before they are kept: each round's
// evaluation and each global server's aggregate taken once (a restarted master or global server
// may report its predecessor's last round again), traffic counts carried on across a process's
// restart or a resume (its next process counts from zero, and no total may go down: a restart is
// told by the agent, or by the new process's records, which name their process), and a
// member's change of state told once (a party server is a member of two schedulers), and every
// record's time on the controller's clock.
#include <QByteArray>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace hips {

class MetricsFeed {
public:
    struct Taken {
        QJsonObject record;  // as the run keeps it (traffic with the counts carried on)
        QByteArray line;  // its line in metrics.jsonl
        QString member, change;  // a member whose state changed, and the notice that says so
    };

    // A record from a role: nothing when it repeats a round already taken. Its time moved by
    // `clockCorrection` seconds: from its host's clock onto the controller's (ClockOffset.h).
    std::optional<Taken> take(const QByteArray& json, double clockCorrection = 0);
    // The records of a resumed run up to its checkpoint: its new processes count from zero.
    void resumeFrom(const QJsonObject& record);
    // The records the history holds of a run taken up again (hips attach): its processes go on.
    void attachTo(const QJsonObject& record);
    // A node's process ended and another takes over: what it had counted is carried on.
    void processEnded(const QString& node) { carry(m_lastTraffic.value(node)); }

private:
    bool firstOfItsRound(const QJsonObject& record);
    void carry(const QJsonObject& traffic);
    // Whether two traffic records of a node are of different processes (each says which it is).
    static bool isAnotherProcess(const QJsonObject& last, const QJsonObject& next);
    static QJsonArray withCarry(const QJsonArray& links, const QHash<QString, QJsonObject>& carried);

    QHash<QString, QHash<QString, QJsonObject>> m_carried;  // node → peer → its link as counted before
    QHash<QString, QJsonObject> m_lastTraffic;  // each node's last record, counts carried
    // "eval", "aggregate <node>" → the newest round taken. (Each comes from one node, in its order:
    // one set of every round taken would grow with the run, a week-long one included.)
    QHash<QString, int> m_newestRound;
    QHash<QString, QString> m_membership;  // each member's last state, as declared
};

}  // namespace hips

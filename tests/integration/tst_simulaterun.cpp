// hips simulate end to end: the run in one process on a virtual clock, kept as a run is (its
// directory, records and history), training exactly what the deployed run trains, and charging
// each message and step what it would cost deployed without waiting for it.
#include "RunHarness.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <thread>
#include <cmath>
#include <functional>

using namespace hips::test;

namespace {

QList<QJsonObject> records(const QString& runDir, const QString& kind) {
    QList<QJsonObject> out;
    QFile f(runDir + "/metrics.jsonl");
    if (!f.open(QIODevice::ReadOnly)) return out;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const QJsonObject r = QJsonDocument::fromJson(line).object();
        if (r["kind"].toString() == kind) out << r;
    }
    return out;
}

// The first train record whose worker's traffic of that round did not come before it: a round's
// bytes are taken as its last train record comes (RunProgress). Empty: none.
QString trainBeforeItsTraffic(const QString& runDir) {
    QFile f(runDir + "/metrics.jsonl");
    if (!f.open(QIODevice::ReadOnly)) return "no metrics.jsonl";
    QHash<QString, int> trafficRound;  // by node: the round of its last traffic record
    for (const QByteArray& line : f.readAll().split('\n')) {
        const QJsonObject r = QJsonDocument::fromJson(line).object();
        const QString node = r["node"].toString();
        const int round = r["round"].toInt();
        if (r["kind"].toString() == "traffic") trafficRound[node] = round;
        if (r["kind"].toString() == "train" && trafficRound.value(node) < round) return QString("%1's round %2").arg(node).arg(round);
    }
    return {};
}

QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QJsonObject summary(const QString& runDir) {
    return QJsonDocument::fromJson(fileBytes(runDir + "/summary.json")).object();
}

// Each node's last traffic record: bytes sent and received on each of its links, by "node -> peer".
QHash<QString, std::pair<double, double>> lastTraffic(const QString& runDir) {
    QHash<QString, std::pair<double, double>> out;
    for (const QJsonObject& r : records(runDir, "traffic"))
        for (const QJsonValue& l : r["links"].toArray()) {
            const QJsonObject link = l.toObject();
            out[r["node"].toString() + " -> " + link["peer"].toString()] = {link["sent"].toDouble(), link["received"].toDouble()};
        }
    return out;
}

// Where a simulated run's links carried other than the deployed run's (beyond 1 % and 1 KiB: the
// headers' bytes are estimated, and a pull, a header alone, is not counted); empty when every
// deployed link's bytes were simulated.
QString trafficMismatch(const QString& realDir, const QString& simDir) {
    const auto realLinks = lastTraffic(realDir), simLinks = lastTraffic(simDir);
    if (realLinks.size() < 8) return QStringLiteral("only %1 links deployed").arg(realLinks.size());
    for (auto it = realLinks.cbegin(); it != realLinks.cend(); ++it) {
        const auto simulated = simLinks.value(it.key(), {-1, -1});
        const auto differ = [](double a, double b) { return std::abs(a - b) > 0.01 * b + 1024; };
        if (differ(simulated.first, it->first) || differ(simulated.second, it->second))
            return QStringLiteral("%1: sent %2, received %3 deployed; %4 and %5 simulated")
                .arg(it.key())
                .arg(it->first)
                .arg(it->second)
                .arg(simulated.first)
                .arg(simulated.second);
    }
    return {};
}

// A file in `run`'s directory holding `text` (an availability trace).
QString writeFile(Run& run, const QString& name, const QByteArray& text) {
    QFile f(run.dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size()) return {};
    return f.fileName();
}

// The topology file at `path`, changed by `edit`.
bool editTopology(const QString& path, const std::function<void(QJsonObject&)>& edit) {
    QFile f(path);
    if (!f.open(QIODevice::ReadWrite)) return false;
    QJsonObject t = QJsonDocument::fromJson(f.readAll()).object();
    edit(t);
    return f.resize(0) && f.seek(0) && f.write(QJsonDocument(t).toJson()) > 0;
}

int trainRecordsOf(const QString& runDir, const QString& prefix, int* lastRound = nullptr) {
    int count = 0;
    for (const QJsonObject& t : records(runDir, "train"))
        if (t["node"].toString().startsWith(prefix)) {
            ++count;
            if (lastRound) *lastRound = std::max(*lastRound, t["round"].toInt());
        }
    return count;
}

}  // namespace

class SimulateRunTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // FedAvg is deterministic: the simulated run's final model is the deployed run's, byte for byte,
    // and it is kept as a run is, every worker reporting every round. The deployed run with its
    // links sealed beside CURVE (transport_security sealed) too.
    void theSimulatedModelIsTheDeployedRunsBitForBit_data() {
        QTest::addColumn<QString>("security");
        QTest::newRow("curve") << "curve";
        QTest::newRow("sealed") << "sealed";
    }

    void theSimulatedModelIsTheDeployedRunsBitForBit() {
        QFETCH(QString, security);
        Run real;
        real.start({"run", kSmall, "--out", real.dir.filePath("real"), "--transport-security", security});
        QVERIFY2(real.finish(180000) == 0, real.out + real.err);
        Run sim;
        sim.start({"simulate", kSmall, "--out", sim.dir.filePath("sim")});
        QVERIFY2(sim.finish(180000) == 0, sim.out + sim.err);
        QVERIFY2(sim.out.contains("finished after 6 rounds"), sim.out.constData());
        const QByteArray realParams = fileBytes(real.dir.filePath("real/net.params")),
                         simParams = fileBytes(sim.dir.filePath("sim/net.params"));
        QVERIFY(!realParams.isEmpty());
        QVERIFY2(realParams == simParams, "the simulated run's net.params differ from the deployed run's");
        QCOMPARE(records(sim.dir.filePath("sim"), "train").size(), 6 * 4);
        QCOMPARE(records(sim.dir.filePath("sim"), "eval").size(), 6);
        QCOMPARE(summary(sim.dir.filePath("sim"))["final_test_acc"].toDouble(),
                 summary(real.dir.filePath("real"))["final_test_acc"].toDouble());
        // Every link carried what it carried deployed: the initial model down and the master's up,
        // each round's model down, the pushes up.
        const QString mismatch = trafficMismatch(real.dir.filePath("real"), sim.dir.filePath("sim"));
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
        for (const QString& dir : {real.dir.filePath("real"), sim.dir.filePath("sim")}) {
            const QString early = trainBeforeItsTraffic(dir);  // (a round's bytes lacked its last upload)
            QVERIFY2(early.isEmpty(), qPrintable(early));
        }
        if (security == "sealed") {  // the updates and models went the sealed way
            qint64 sealed = 0;
            for (const QJsonObject& r : records(real.dir.filePath("real"), "traffic")) sealed += qint64(r["sealed_frames"].toDouble());
            QVERIFY2(sealed > 0, "no frame was sealed");
        }
        const auto [status, show] = sim.historyCommand({"show", "1"});
        QVERIFY2(status == 0 && show.contains("finished") && show.contains("hips simulate"), show.constData());
        QVERIFY(sim.leftovers().isEmpty());
    }

    // Each link carries what it carries deployed: under clients_per_round a worker not drawn sits
    // the round out but pulls its model; over an emulated WAN the final model goes down while the
    // global server lingers (its last record counts it). The two runs train the same model.
    void linksCarryWhatTheyCarryDeployed_data() {
        QTest::addColumn<QStringList>("options");
        QTest::newRow("clients_per_round 0.5") << QStringList{"--clients-per-round", "0.5", "--rounds", "4"};
        QTest::newRow("wan 50 Mbit/s, 20 ms") << QStringList{"--wan", "50,20", "--rounds", "2"};
    }

    void linksCarryWhatTheyCarryDeployed() {
        QFETCH(QStringList, options);
        Run real, sim;
        real.start(QStringList{"run", kSmall} + options + QStringList{"--out", real.dir.filePath("real")});
        QVERIFY2(real.finish(180000) == 0, real.out + real.err);
        sim.start(QStringList{"simulate", kSmall} + options + QStringList{"--out", sim.dir.filePath("sim")});
        QVERIFY2(sim.finish(180000) == 0, sim.out + sim.err);
        const QString mismatch = trafficMismatch(real.dir.filePath("real"), sim.dir.filePath("sim"));
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
        QVERIFY(fileBytes(real.dir.filePath("real/net.params")) == fileBytes(sim.dir.filePath("sim/net.params")));
    }

    // A 1 Mbit/s, 200 ms WAN: every round sends the model down and each party's sum up, which the
    // virtual clock charges in full (at least rounds x 2 x (latency + bytes / bandwidth)), while the
    // simulation itself takes a fraction of that.
    // A global rule that needs each worker's update (median) over party servers that fold: they
    // relay each push whole. The model crosses to each party once, and on to its workers; before,
    // the simulated global server counted a model and a push on a link to each worker, as if
    // they were its own, and none through their party servers.
    void relayedPushesCrossTheirPartyServers() {
        Run real, sim;
        for (Run* run : {&real, &sim}) {
            const QString topology =
                writeSmallVariant(*run, QJsonArray{QJsonObject{{"count", 2}}}, {{"aggregation", "median"}, {"rounds", 2}});
            run->start({run == &real ? "run" : "simulate", topology, "--out", run->dir.filePath("run")});
            QVERIFY2(run->finish(180000) == 0, run->out + run->err);
        }
        const QString mismatch = trafficMismatch(real.dir.filePath("run"), sim.dir.filePath("run"));
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
        QVERIFY(!lastTraffic(sim.dir.filePath("run")).contains("central/global_server0 -> party1/worker0"));
        QVERIFY(fileBytes(real.dir.filePath("run/net.params")) == fileBytes(sim.dir.filePath("run/net.params")));
    }

    void aSlowWanCostsVirtualTimeNotWallTime() {
        Run sim;
        QElapsedTimer wall;
        wall.start();
        sim.start({"simulate", kSmall, "--wan", "1,200", "--out", sim.dir.filePath("sim")});
        QVERIFY2(sim.finish(180000) == 0, sim.out + sim.err);
        const double wallSeconds = double(wall.elapsed()) / 1000;
        const QList<QJsonObject> evals = records(sim.dir.filePath("sim"), "eval");
        QVERIFY(!evals.isEmpty());
        const double modelBytes = double(fileBytes(sim.dir.filePath("sim/net.params")).size());  // (a little more than the floats)
        const double bound = 6 * 2 * (0.2 + 0.9 * modelBytes / (1e6 / 8));
        const double virtualSeconds = summary(sim.dir.filePath("sim"))["seconds"].toDouble();
        QVERIFY2(virtualSeconds >= bound, qPrintable(QString("virtual %1 s, bound %2 s").arg(virtualSeconds).arg(bound)));
        QVERIFY2(wallSeconds < virtualSeconds / 2, qPrintable(QString("wall %1 s for %2 virtual s").arg(wallSeconds).arg(virtualSeconds)));
        qInfo("virtual %.1f s in %.1f s of wall time", virtualSeconds, wallSeconds);
        // A worker's comm_s, as deployed, lasts until the answer is in: its party's sum up the
        // WAN and the model back down, each 0.2 + 6.5 s. It waits from its push's leaving to the
        // answer's first slice, which for the mlp (one slice) is all of it.
        const QList<QJsonObject> trains = records(sim.dir.filePath("sim"), "train");
        QVERIFY(!trains.isEmpty());
        for (const QJsonObject& t : trains) {
            const double comm = t["comm_s"].toDouble(), wait = t["wait_s"].toDouble();
            QVERIFY2(comm > 2 * (0.2 + 0.9 * modelBytes / (1e6 / 8)) && comm - wait < 0.01 * comm,
                     qPrintable(QString("comm_s %1, wait_s %2").arg(comm).arg(wait)));
        }
    }

    // What the deployed run on this machine spends beside its rounds: the clock starts at the
    // launch, so round 1 begins after the start-up; and the master evaluating a model is one more
    // thread on the cores its host's workers share (the default topology: every role on this
    // machine, a CNN whose evaluation lasts about a round). Steps of rounds an evaluation runs
    // beside are charged that share: about (4 + 1) / 4 of those of a run that evaluates only at its
    // end. The charge is in each train record (`contention`, the threads per core the steps were
    // stretched by). (The ratio of the two runs' step times, measured one after the other, was
    // 1.23–1.32 alone and 1.10–1.12 beside another test, against 1.03–1.06 uncharged: too close
    // to assert on.)
    void theStartUpAndTheMastersEvaluationAreCharged() {
        const QString topology = QStringLiteral(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        auto secondsPerStep = [](const QString& runDir) {
            double seconds = 0, steps = 0;
            for (const QJsonObject& t : records(runDir, "train"))
                if (t["round"].toInt() >= 3) seconds += t["compute_s"].toDouble(), steps += t["local_steps"].toDouble();
            return steps > 0 ? seconds / steps : 0;
        };
        Run everyRound, atTheEnd;
        everyRound.start({"simulate", topology, "--rounds", "4", "--eval-every", "1", "--out", everyRound.dir.filePath("sim")});
        QVERIFY2(everyRound.finish(180000) == 0, everyRound.out + everyRound.err);
        atTheEnd.start({"simulate", topology, "--rounds", "4", "--eval-every", "4", "--out", atTheEnd.dir.filePath("sim")});
        QVERIFY2(atTheEnd.finish(180000) == 0, atTheEnd.out + atTheEnd.err);
        // Each round's contention, the same for all of the host's workers.
        auto contention = [](const QString& runDir) {
            QMap<int, double> byRound;
            for (const QJsonObject& t : records(runDir, "train")) byRound[t["round"].toInt()] = t["contention"].toDouble();
            return byRound;
        };
        const QMap<int, double> beside = contention(everyRound.dir.filePath("sim")), alone = contention(atTheEnd.dir.filePath("sim"));
        QCOMPARE(alone.keys(), (QList<int>{1, 2, 3, 4}));
        QCOMPARE(beside.value(2), alone.value(2));  // nothing measured to charge yet
        const double threadsPerCore = alone.value(1);  // (4 workers on this machine's cores, at least 1)
        QVERIFY2(threadsPerCore >= 1, qPrintable(QString::number(threadsPerCore)));
        const bool shared = std::thread::hardware_concurrency() < 5;  // 4 workers and the evaluation: more threads than cores
        for (int round : {3, 4}) {  // (the evaluation of round 1 is measured once round 2 is under way)
            QCOMPARE(alone.value(round), threadsPerCore);  // nothing evaluated beside it
            // One more thread, for as much of the round as the evaluation took (at most all of it).
            const double charged = beside.value(round) / threadsPerCore;
            QVERIFY2(shared ? charged > 1.0 && charged <= 1.25 + 1e-9 : charged == 1.0,
                     qPrintable(QString("round %1 beside an evaluation: %2 times the threads").arg(round).arg(charged)));
        }
        const double ratio = secondsPerStep(everyRound.dir.filePath("sim")) / secondsPerStep(atTheEnd.dir.filePath("sim"));
        const QJsonObject first = records(atTheEnd.dir.filePath("sim"), "aggregate").value(0);
        const double launch = QJsonDocument::fromJson(fileBytes(atTheEnd.dir.filePath("sim/net.meta"))).object()["begin_time"].toDouble();
        const double startUp = first["t"].toDouble() - first["round_s"].toDouble() - launch;
        QVERIFY2(startUp > 0.01 && startUp < 60, qPrintable(QString("round 1 began %1 s after the launch").arg(startUp)));
        qInfo("steps beside an evaluation: %.2f times; round 1 began %.2f s after the launch", ratio, startUp);
    }

    // ESync: after every local step a worker asks the central party's state service whether to go
    // on, and over a WAN that question and its answer cross it, deployed (the emulation shapes
    // them) and simulated (the clock charges them). At 100 ms each way every synchronisation
    // then takes at least four crossings: the question and answer of the slowest's one step, its
    // push up and the model down (without the questions' ~0.2 s, a round of 5 would take ~1.1 s).
    void esyncQuestionsCrossTheWanAfterEveryStep() {
        const QStringList options{kSmall, "--mode", "esync", "--rounds", "1", "--local-iters", "5", "--wan", "1000,100"};
        for (const QString& command : {QStringLiteral("run"), QStringLiteral("simulate")}) {
            Run run;
            run.start(QStringList{command} + options + QStringList{"--out", run.dir.filePath("run")});
            QVERIFY2(run.finish(180000) == 0, run.out + run.err);
            const QList<QJsonObject> rounds = records(run.dir.filePath("run"), "aggregate");
            QVERIFY(!rounds.isEmpty());
            const double seconds = rounds.first()["round_s"].toDouble();
            QVERIFY2(seconds >= 5 * 4 * 0.1 * 0.95, qPrintable(QString("%1: a round of 5 took %2 s").arg(command).arg(seconds)));
            qInfo("%s: a round of 5 synchronisations took %.2f s", qPrintable(command), seconds);
        }
    }

    // A worker group half available: some rounds go without some workers, the run still ends.
    void availabilityLeavesWorkersOutOfRounds() {
        Run sim;
        const QString topology = writeSmallVariant(sim, QJsonArray{QJsonObject{{"count", 2}, {"availability", 0.5}}}, {});
        sim.start({"simulate", topology, "--out", sim.dir.filePath("sim")});
        QVERIFY2(sim.finish(180000) == 0, sim.out + sim.err);
        int party1 = 0, party2 = 0;
        for (const QJsonObject& t : records(sim.dir.filePath("sim"), "train"))
            (t["node"].toString().startsWith("party1/") ? party1 : party2)++;
        QCOMPARE(party2, 6 * 2);
        QVERIFY2(party1 < 6 * 2, qPrintable(QString::number(party1)));
    }

    // ESync with a half-available group: under continue the state service waits heartbeat_timeout_s
    // of the virtual clock for an absent worker, then leaves it out, and every round ends; under
    // fail it would wait forever, and the simulation is refused saying so.
    void esyncWithAvailabilityGoesOnUnderContinue() {
        Run sim;
        const QString topology = writeSmallVariant(sim, QJsonArray{QJsonObject{{"count", 2}, {"availability", 0.5}}},
                                                   {{"mode", "esync"}, {"fault_policy", "continue"}, {"heartbeat_timeout_s", 2}});
        sim.start({"simulate", topology, "--out", sim.dir.filePath("sim")});
        QVERIFY2(sim.finish(180000) == 0, sim.out + sim.err);
        QCOMPARE(records(sim.dir.filePath("sim"), "aggregate").size(), 6);
        int party1 = 0;
        for (const QJsonObject& t : records(sim.dir.filePath("sim"), "train")) party1 += t["node"].toString().startsWith("party1/");
        QVERIFY2(party1 < 6 * 2, qPrintable(QString::number(party1)));
        Run refused;
        refused.start({"simulate",
                       writeSmallVariant(refused, QJsonArray{QJsonObject{{"count", 2}, {"availability", 0.5}}}, {{"mode", "esync"}}),
                       "--out", refused.dir.filePath("sim")});
        QVERIFY(refused.finish(60000) != 0);
        QVERIFY2(refused.err.contains("set fault_policy continue") || refused.out.contains("set fault_policy continue"),
                 refused.out + refused.err);
    }

    // Collective parties (party1 on a ring of three, party2 by butterfly) are simulated with the
    // deployed party's own collective: the same model as the deployed run, byte for byte, and the
    // links inside each party carry what they carried deployed, give or take the first model. So
    // with party_compression fp16, the sums' chunks as half floats and the weights summed apart;
    // so under fault_policy continue, where the pushing worker sends the model to each member (the
    // simulation had it go down the chain).
    void collectivePartiesAreSimulatedBitForBit_data() {
        QTest::addColumn<QString>("partyCompression");
        QTest::addColumn<QString>("faultPolicy");
        QTest::newRow("floats") << "none"
                                << "fail";
        QTest::newRow("fp16") << "fp16"
                              << "fail";
        QTest::newRow("floats, continue") << "none"
                                          << "continue";
        QTest::newRow("floats, a worker sends NaN") << "none"  // (left out of its party's sum alike)
                                                    << "fail";
    }

    void collectivePartiesAreSimulatedBitForBit() {
        QFETCH(QString, partyCompression);
        QFETCH(QString, faultPolicy);
        Run real, sim;
        for (Run* run : {&real, &sim}) {
            QFile f(writeSmallVariant(*run, QJsonArray{QJsonObject{{"count", 3}}}, {}));
            QVERIFY(f.open(QIODevice::ReadWrite));
            QJsonObject t = QJsonDocument::fromJson(f.readAll()).object();
            QJsonArray parties = t["parties"].toArray();
            for (int i = 1; i <= 2; ++i) {
                QJsonObject party = parties[i].toObject();
                party["transport"] = i == 1 ? "ring" : "butterfly";
                parties[i] = party;
            }
            t["parties"] = parties;
            QJsonObject training = t["training"].toObject();
            training["party_compression"] = partyCompression;
            training["fault_policy"] = faultPolicy;
            if (QByteArray(QTest::currentDataTag()).contains("NaN")) training["adversary"] = QJsonObject{{"kind", "nan"}, {"count", 1}};
            t["training"] = training;
            QVERIFY(f.resize(0) && f.seek(0) && f.write(QJsonDocument(t).toJson()) > 0);
        }
        real.start({"run", real.dir.filePath("variant.json"), "--out", real.dir.filePath("real")});
        QVERIFY2(real.finish(180000) == 0, real.out + real.err);
        sim.start({"simulate", sim.dir.filePath("variant.json"), "--out", sim.dir.filePath("sim")});
        QVERIFY2(sim.finish(180000) == 0, sim.out + sim.err);
        const QByteArray realParams = fileBytes(real.dir.filePath("real/net.params"));
        QVERIFY(!realParams.isEmpty());
        QVERIFY2(realParams == fileBytes(sim.dir.filePath("sim/net.params")),
                 "the simulated collectives' net.params differ from the deployed");
        // Ring: each worker's link to the next carries 2(N−1)/N of each sum (and the model down the chain).
        auto sentTo = [](const QString& runDir, const QString& from, const QString& to) {
            double sent = 0;
            for (const QJsonObject& r : records(runDir, "traffic"))
                if (r["node"].toString() == from) {
                    sent = 0;
                    for (const QJsonValue& l : r["links"].toArray())
                        if (l["peer"].toString() == to) sent += l["sent"].toDouble();
                }
            return sent;
        };
        // (Under continue the pushing worker sends each model to worker2 itself; in a ring 0 sends only to 1.)
        QList<std::pair<const char*, const char*>> links{{"party1/worker2", "party1/worker0"}};
        if (faultPolicy == "continue") links.append(std::pair{"party1/worker0", "party1/worker2"});
        for (const auto& [from, to] : links) {
            const double deployed = sentTo(real.dir.filePath("real"), from, to), simulated = sentTo(sim.dir.filePath("sim"), from, to);
            qInfo("%s -> %s: %.0f bytes deployed, %.0f simulated", from, to, deployed, simulated);
            QVERIFY2(deployed > 0 && std::abs(simulated - deployed) <= 0.05 * deployed, qPrintable(QString::number(simulated)));
        }
        QVERIFY(real.leftovers().isEmpty() && sim.leftovers().isEmpty());
    }

    // A trace that has every worker off when a round's model leaves: the round waits, on the
    // virtual clock, for the first to come on (as a deployed server waits for pushes); before,
    // every round went by at once with the model unchanged, and nothing trained.
    void aRoundWaitsForATraceToTurnAWorkerOn() {
        Run sim;
        const QString trace = writeFile(sim, "later.txt", "100 1000\n");
        sim.start({"simulate", writeSmallVariant(sim, QJsonArray{QJsonObject{{"count", 2}, {"availability", trace}}}, {}, true), "--out",
                   sim.dir.filePath("sim")});
        QVERIFY2(sim.finish(120000) == 0, sim.out + sim.err);
        QCOMPARE(trainRecordsOf(sim.dir.filePath("sim"), "party1/"), 6 * 2);
        const QList<QJsonObject> rounds = records(sim.dir.filePath("sim"), "aggregate");
        QCOMPARE(rounds.size(), 6);
        // (Round 1 began after the start-up, a second or so here: it ends after the trace's 100 s.)
        QVERIFY2(rounds.first()["round_s"].toDouble() >= 90.0, qPrintable(QString::number(rounds.first()["round_s"].toDouble())));
        QVERIFY2(!sim.out.contains("goes on unchanged"), sim.out.constData());
        // Drawing one worker a round: each round's draw recorded once (the wait drew again, and
        // recorded round 1's draw twice).
        Run sampled;
        sampled.start(
            {"simulate",
             writeSmallVariant(sampled, QJsonArray{QJsonObject{{"count", 2}, {"availability", trace}}}, {{"clients_per_round", 1}}, true),
             "--out", sampled.dir.filePath("sim")});
        QVERIFY2(sampled.finish(120000) == 0, sampled.out + sampled.err);
        QCOMPARE(records(sampled.dir.filePath("sim"), "sample").size(), 6);
    }

    // Under continue, a party whose every worker goes off mid-round (1 s a step, off at 25 s: in
    // round 3) sits the round out and the other party carries the rounds; before, the run ended
    // there ("cannot close"). With no other party, those rounds leave the model unchanged.
    void aPartyWhoseWorkersAllGoOffSitsTheRoundOut() {
        Run sim, alone;
        for (Run* run : {&sim, &alone}) {
            const QString trace = writeFile(*run, "until25.txt", "0 25\n");
            const QJsonArray group{QJsonObject{{"count", 2}, {"device_profile", 1.0}, {"availability", trace}}};
            run->start({"simulate",
                        writeSmallVariant(*run, group, {{"fault_policy", "continue"}, {"heartbeat_timeout_s", 2}}, run == &alone), "--out",
                        run->dir.filePath("sim")});
            QVERIFY2(run->finish(120000) == 0, run->out + run->err);
            QCOMPARE(records(run->dir.filePath("sim"), "aggregate").size(), 6);
        }
        // Rounds 1 and 2 are party1's: the round its workers went off in is not (a deployed
        // worker that goes says nothing of the round it was in; before, both reported round 3).
        int lastRound = 0;
        QCOMPARE(trainRecordsOf(sim.dir.filePath("sim"), "party1/", &lastRound), 2 * 2);
        QCOMPARE(lastRound, 2);
        QCOMPARE(trainRecordsOf(sim.dir.filePath("sim"), "party2/"), 6 * 2);
        QVERIFY2(sim.out.contains("party1/worker0 declared down: went off (its availability trace)"), sim.out.constData());
        const QByteArray log = fileBytes(alone.dir.filePath("sim/logs/central-global_server0.log"));
        QVERIFY2(log.contains("round 3: every contributor dropped out (availability); the model goes on unchanged"), log.constData());
        QVERIFY2(log.contains("round 4: no worker is available, and no trace turns one on later"), log.constData());
    }

    // A collective party's member that goes off mid-round is lost as a party server's worker is:
    // under fail the run stops naming it; under continue the others' sum goes on without it.
    // Before, the collective summed its push as if it had stayed on. On again (at 40 s), it stays
    // out, as deployed, where the party takes no member back and the worker leaves the run.
    void aCollectiveMemberThatGoesOffIsLost() {
        Run failing, going;
        for (Run* run : {&failing, &going}) {
            const QString trace = writeFile(*run, "until25.txt", "0 25\n40 1000\n");
            const QJsonArray groups{QJsonObject{{"count", 2}, {"device_profile", 1.0}},
                                    QJsonObject{{"count", 1}, {"device_profile", 1.0}, {"availability", trace}}};
            const QJsonObject training =
                run == &going ? QJsonObject{{"fault_policy", "continue"}, {"heartbeat_timeout_s", 2}} : QJsonObject{};
            const QString topology = writeSmallVariant(*run, groups, training);
            QVERIFY(editTopology(topology, [](QJsonObject& t) {
                QJsonArray parties = t["parties"].toArray();
                QJsonObject party1 = parties[1].toObject();
                party1["transport"] = "ring";
                parties[1] = party1;
                t["parties"] = parties;
            }));
            run->start({"simulate", topology, "--out", run->dir.filePath("sim")});
        }
        QVERIFY(failing.finish(120000) != 0);
        QVERIFY2(failing.err.contains("party1/worker2 went off at 25.0 s"), failing.out + failing.err);
        QVERIFY2(going.finish(120000) == 0, going.out + going.err);
        QCOMPARE(records(going.dir.filePath("sim"), "aggregate").size(), 6);
        QCOMPARE(trainRecordsOf(going.dir.filePath("sim"), "party1/worker0"), 6);
        QCOMPARE(trainRecordsOf(going.dir.filePath("sim"), "party1/worker2"), 2);  // (rounds 1 and 2: it went off in 3)
        QVERIFY2(going.out.contains("party1/worker2 declared left"), going.out.constData());
    }

    // ssgd's round is ten syncs: a worker that goes off in one (its trace, at 25 s: round 3) is
    // out of the round's later syncs once declared down, as deployed. It trained on in each, and
    // each waited heartbeat_timeout_s (2 s) for it again: round 3 took 10 s more.
    void aWorkerOffMidRoundIsOutOfItsLaterSyncs() {
        Run sim;
        const QString trace = writeFile(sim, "until25.txt", "0 25\n");
        const QJsonArray groups{QJsonObject{{"count", 2}, {"device_profile", 1.0}},
                                QJsonObject{{"count", 1}, {"device_profile", 1.0}, {"availability", trace}}};
        sim.start({"simulate", writeSmallVariant(sim, groups, {{"mode", "ssgd"}, {"fault_policy", "continue"}, {"heartbeat_timeout_s", 2}}),
                   "--out", sim.dir.filePath("sim")});
        QVERIFY2(sim.finish(120000) == 0, sim.out + sim.err);
        QList<double> at;  // each round's end, virtual
        for (const QJsonObject& a : records(sim.dir.filePath("sim"), "aggregate"))
            if (a["round"].toInt() <= 3 && at.size() < a["round"].toInt()) at << a["t"].toDouble();
        QCOMPARE(at.size(), 3);
        const double round2 = at[1] - at[0], round3 = at[2] - at[1];
        QVERIFY2(round3 < round2 + 3 * 2, qPrintable(QString("round 2 %1 s, round 3 %2 s").arg(round2).arg(round3)));
        // ... and the sync it went off in waited until it was declared down, at 27 s (it closed on
        // the pushes that came: round 3 took 10.03 s, as round 2; 11.2 s now)
        QVERIFY2(round3 > round2 + 0.5, qPrintable(QString("round 2 %1 s, round 3 %2 s").arg(round2).arg(round3)));

        // Back at 35 s, it trains again: its link says what it sent, as its server's does (the push
        // it was computing as it went off was counted as sent).
        Run back;
        const QString again = writeFile(back, "offAt25.txt", "0 25\n35 1000\n");
        const QJsonArray returning{QJsonObject{{"count", 2}, {"device_profile", 1.0}},
                                   QJsonObject{{"count", 1}, {"device_profile", 1.0}, {"availability", again}}};
        back.start({"simulate",
                    writeSmallVariant(back, returning, {{"mode", "ssgd"}, {"fault_policy", "continue"}, {"heartbeat_timeout_s", 2}}),
                    "--out", back.dir.filePath("sim")});
        QVERIFY2(back.finish(120000) == 0, back.out + back.err);
        QVERIFY2(trainRecordsOf(back.dir.filePath("sim"), "party1/worker2") > 3, back.out.constData());  // (it came back)
        const auto links = lastTraffic(back.dir.filePath("sim"));
        const double sent = links.value("party1/worker2 -> party1/server0").first,
                     received = links.value("party1/server0 -> party1/worker2").second;
        QVERIFY2(sent > 0 && sent == received, qPrintable(QString("sent %1, received %2").arg(sent).arg(received)));
    }

    // A party's quorum leaves its slow worker's pushes late: its party server's traffic records
    // count them, as a deployed one's do (the simulated party servers' said none).
    void aPartysLatePushesAreCounted() {
        Run sim;
        const QString path = writeSmallVariant(sim, {QJsonObject{{"count", 3}}, QJsonObject{{"count", 1}, {"slowdown", 8}}},
                                               {{"quorum", 3}, {"local_iters", 20}}, true);
        sim.start({"simulate", path, "--out", sim.dir.filePath("sim")});
        QVERIFY2(sim.finish(120000) == 0, sim.out + sim.err);
        qint64 late = 0;
        for (const QJsonObject& r : records(sim.dir.filePath("sim"), "traffic"))
            if (r["node"] == "party1/server0") late = std::max(late, r["late_pushes"].toInteger());
        QVERIFY2(late >= 1, "the slow worker's late pushes were not counted");
    }

    // What the simulator cannot run, or a broken trace, is refused before anything trains.
    void refusesWhatItCannotSimulateWithAReason() {
        Run async;
        async.start({"simulate", kSmall, "--mode", "asgd"});
        QCOMPARE(async.finish(60000), 2);
        QVERIFY2(async.err.contains("hips simulate runs the modes that aggregate in rounds"), async.err.constData());
        Run trace;
        QFile bad(trace.dir.filePath("trace.txt"));
        QVERIFY(bad.open(QIODevice::WriteOnly) && bad.write("0 10\n20 5\n") > 0);
        bad.close();
        const QString topology = writeSmallVariant(trace, QJsonArray{QJsonObject{{"count", 2}, {"availability", bad.fileName()}}}, {});
        trace.start({"simulate", topology, "--out", trace.dir.filePath("sim")});
        QVERIFY(trace.finish(120000) != 0);
        QVERIFY2(trace.err.contains("$.parties[1].roles.workers[0].availability: availability trace " + bad.fileName().toUtf8() +
                                    ": line 2 is not \"START END\""),
                 trace.out + trace.err);
        QVERIFY(!QFileInfo::exists(trace.dir.filePath("sim")));  // refused before the run began: no run directory,
        QVERIFY2(!trace.historyList().contains("small"), trace.historyList().constData());  // no run in the history
    }
};

QTEST_MAIN(SimulateRunTest)
#include "tst_simulaterun.moc"
